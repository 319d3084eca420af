<?xml version="1.0" encoding="UTF-8"?>
<!--
  Plans a valid-index build. Input: the `.job.xml` of DITA-OT's own, unfiltered preprocess2 run.
  Output: `plan.xml`, a small Ant project that (1) checksums each profile's DITAVAL (and names it by
  URI in the run document, for the header's `keeps`), (2) runs one
  DITA-OT preprocess2 per profile into its own job directory, (3) writes the run document that
  xsl/valid-index.xsl reads (docs/architecture.md). Ant has no loop; generating the loop here keeps
  the plugin's build file free of anything but documented DITA-OT extension points.
  With profiles from a subject scheme, also writes one implied DITAVAL per value (scheme.xsl), and
  a copy of the scheme with @xtrf/@xtrc (locate.xsl) for the run document: the scheme is not part
  of any DITA-OT job, and its elements are reported with file and line.
-->
<xsl:stylesheet version="3.0"
    xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
    xmlns:xs="http://www.w3.org/2001/XMLSchema"
    xmlns:vp="urn:valid:plugin"
    exclude-result-prefixes="#all"
    expand-text="no">

  <xsl:include href="scheme.xsl"/>
  <xsl:include href="uri.xsl"/>
  <xsl:include href="locate.xsl"/>

  <xsl:output method="xml" encoding="UTF-8" indent="yes"/>

  <!-- Where profiles come from: a subject scheme (+ attribute) or a list of DITAVALs. -->
  <xsl:param name="scheme-uri" as="xs:string" select="''"/>
  <xsl:param name="attribute" as="xs:string" select="''"/>
  <xsl:param name="ditavals" as="xs:string" select="''"/>
  <!-- Broader scheme values that are profiles of their own (comma- or space-separated). -->
  <xsl:param name="parent-profiles" as="xs:string" select="''"/>
  <!-- The fixed temp directory of a project file or the temp option (a platform path), '' otherwise: each
       profile is then preprocessed in it and its job moved to the profile's own directory. -->
  <xsl:param name="shared-temp-dir" as="xs:string" select="''"/>
  <xsl:variable name="shared" as="xs:boolean" select="$shared-temp-dir ne ''"/>
  <!-- The directory `dita` was started in (a platform path, valid.base.dir): relative DITAVAL
       paths are resolved against it. -->
  <xsl:param name="base-dir" as="xs:string" select="''"/>
  <!-- file: URI of the plugin's work directory (${dita.temp.dir}/valid/), ending in '/'. -->
  <xsl:param name="work-dir-uri" as="xs:string"/>
  <!-- file: URI of the installed plugin directory, ending in '/'. -->
  <xsl:param name="plugin-dir-uri" as="xs:string"/>
  <!-- Header inputs computed by Ant. -->
  <xsl:param name="schema-version" as="xs:string" select="'1.0'"/>
  <xsl:param name="stylesheet-digest" as="xs:string"/>
  <xsl:param name="scheme-digest" as="xs:string" select="''"/>
  <xsl:param name="source-commit" as="xs:string" select="''"/>

  <xsl:variable name="job" select="/" as="document-node()"/>
  <xsl:variable name="root-map" select="$job/job/files/file[@input = 'true'][1]" as="element()?"/>

  <xsl:variable name="scheme" as="document-node()?"
      select="if ($scheme-uri ne '') then doc($scheme-uri) else ()"/>
  <xsl:variable name="scheme-name" select="vp:decode(tokenize($scheme-uri, '/')[last()])"/>

  <!-- With valid.ditavals the profiles come from the DITAVALs; a scheme given beside them only
       checks the values and names them (as `valid export` with a scheme and DITAVAL profiles). -->
  <xsl:variable name="from-ditavals" as="xs:boolean" select="normalize-space($ditavals) ne ''"/>

  <xsl:variable name="resolved-attribute" as="xs:string"
      select="if (exists($scheme) and not($from-ditavals)) then vp:resolve-attribute($scheme, $attribute, $scheme-name) else ''"/>

  <!-- One <profile name ditaval/> per profile, in profile order. @ditaval is a platform path
       (absolute) for an explicit DITAVAL, or a path relative to the work directory for a
       generated one; @text holds a generated DITAVAL's content. -->
  <xsl:variable name="profiles" as="element(profile)*">
    <xsl:choose>
      <xsl:when test="exists($scheme) and not($from-ditavals)">
        <xsl:variable name="values" select="vp:profile-values($scheme, $resolved-attribute,
                                                 tokenize($parent-profiles, '[,\s]+')[. ne ''])"/>
        <xsl:if test="empty($values)">
          <xsl:message terminate="yes" select="'VALID: the subject scheme ' || $scheme-name
            || ' declares no values for @' || $resolved-attribute"/>
        </xsl:if>
        <xsl:for-each select="$values">
          <profile name="{.}" ditaval="ditaval/{.}.ditaval"
                   text="{vp:implied-ditaval($scheme, $resolved-attribute, .)}">
            <xsl:for-each select="vp:labels($scheme, $resolved-attribute, .)">
              <label><xsl:value-of select="."/></label>
            </xsl:for-each>
          </profile>
        </xsl:for-each>
      </xsl:when>
      <xsl:when test="normalize-space($ditavals) ne ''">
        <xsl:for-each select="tokenize($ditavals, ',') ! normalize-space(.)[. ne '']">
          <xsl:variable name="file" select="if (contains(., '=')) then substring-after(., '=') else ."/>
          <xsl:variable name="name" select="if (contains(., '='))
                                            then substring-before(., '=')
                                            else replace(tokenize(translate($file, '\', '/'), '/')[last()],
                                                         '\.[^.]*$', '')"/>
          <profile name="{normalize-space($name)}" ditaval="{vp:absolute-path(normalize-space($file))}">
            <!-- With a scheme, the stylesheet labels the profile from it, as valid export does. -->
            <xsl:if test="empty($scheme)">
              <label><xsl:value-of select="normalize-space($name)"/></label>
            </xsl:if>
          </profile>
        </xsl:for-each>
      </xsl:when>
      <xsl:otherwise>
        <xsl:message terminate="yes"
            select="'VALID: no profiles: give valid.scheme (a subject scheme map) or valid.ditavals (NAME=FILE.ditaval,...)'"/>
      </xsl:otherwise>
    </xsl:choose>
  </xsl:variable>

  <xsl:template match="/">
    <xsl:if test="empty($root-map)">
      <xsl:message terminate="yes" select="'VALID: no root map (file[@input=''true'']) in ' || base-uri(/)"/>
    </xsl:if>
    <xsl:for-each select="$profiles">
      <xsl:if test="not(matches(@name, '^[A-Za-z0-9][A-Za-z0-9._-]*$')) or @name = '_unfiltered'">
        <xsl:message terminate="yes" select="'VALID: profile name ''' || @name
          || ''' must be letters, digits, ''.'', ''_'' or ''-'' (and not _unfiltered)'"/>
      </xsl:if>
      <xsl:if test="@name = preceding-sibling::profile/@name">
        <xsl:message terminate="yes" select="'VALID: profile ''' || @name || ''' is given twice'"/>
      </xsl:if>
    </xsl:for-each>
    <xsl:for-each select="$profiles[@text]">
      <xsl:result-document href="{$work-dir-uri}{@ditaval}" method="text" encoding="UTF-8">
        <xsl:value-of select="@text"/>
      </xsl:result-document>
    </xsl:for-each>
    <xsl:if test="exists($scheme)">
      <xsl:result-document href="{$located-scheme-uri}" method="xml" encoding="UTF-8">
        <xsl:sequence select="vp:located($scheme)"/>
      </xsl:result-document>
    </xsl:if>
    <xsl:call-template name="plan"/>
  </xsl:template>

  <xsl:variable name="located-scheme-uri" select="$work-dir-uri || 'scheme/' || tokenize($scheme-uri, '/')[last()]"/>

  <xsl:template name="plan">
    <xsl:variable name="src" select="string($root-map/@src)"/>
    <project name="valid-index.plan" default="plan" basedir=".">
      <target name="plan">
        <xsl:if test="$shared">
          <!-- the unfiltered job first makes room: a preprocess reads a .job.xml it finds -->
          <xsl:call-template name="move-job">
            <xsl:with-param name="to" select="'_unfiltered'"/>
          </xsl:call-template>
        </xsl:if>
        <xsl:for-each select="$profiles">
          <xsl:variable name="n" select="position()"/>
          <xsl:variable name="ditaval" select="'valid.plan.ditaval.' || $n"/>
          <xsl:variable name="dir" select="'valid.plan.job.' || $n"/>
          <property name="{$ditaval}" location="{vp:ant(@ditaval)}"/>
          <property name="{$dir}" location="{vp:ant(@name)}"/>
          <fail message="{vp:ant('VALID: the DITAVAL of profile ' || @name || ' does not exist: ')}${{{$ditaval}}}">
            <condition><not><available file="${{{$ditaval}}}" type="file"/></not></condition>
          </fail>
          <checksum file="${{{$ditaval}}}" algorithm="SHA-256" property="valid.plan.digest.{$n}"/>
          <makeurl file="${{{$ditaval}}}" property="valid.plan.ditaval.uri.{$n}"/>
          <echo taskname="valid-index" message="{vp:ant('Profile ' || @name || ': preprocess2 with ')}${{{$ditaval}}}"/>
          <delete dir="${{{$dir}}}" quiet="true"/>
          <ant antfile="${{valid.ot.build.file}}" target="valid-index.preprocess-profile"
               inheritall="false" inheritrefs="false">
            <property name="dita.temp.dir" value="${{{$dir}}}"/>
            <property name="args.filter" value="${{{$ditaval}}}"/>
            <property name="dita.input.valfile" value="${{{$ditaval}}}"/>
          </ant>
          <xsl:if test="$shared">
            <xsl:call-template name="move-job">
              <xsl:with-param name="to" select="'${' || $dir || '}'"/>
            </xsl:call-template>
          </xsl:if>
          <!-- A user property (the dita temp option) cannot be overridden in a sub-build: fail loudly
               rather than export a job that was not filtered for this profile. -->
          <fail message="{vp:ant('VALID: the preprocess of profile ' || @name || ' did not write its job to ')}${{{$dir}}}">
            <condition><not><available file="${{{$dir}}}/.job.xml" type="file"/></not></condition>
          </fail>
        </xsl:for-each>
        <echoxml file="run.xml">
          <valid-run schema-version="{vp:ant($schema-version)}"
                     exporter-version="{vp:ant(string(doc($plugin-dir-uri || 'plugin.xml')/plugin/@version))}"
                     stylesheet-digest="{vp:ant($stylesheet-digest)}"
                     scheme-digest="{vp:ant($scheme-digest)}"
                     source-commit="{vp:ant($source-commit)}"
                     map="{vp:ant(vp:decode(tokenize($src, '/')[last()]))}"
                     attribute="{vp:ant($resolved-attribute)}"
                     src-base="{vp:ant(replace($src, '/[^/]*$', '/'))}">
            <xsl:for-each select="$profiles">
              <profile name="{vp:ant(@name)}" job="{vp:ant($work-dir-uri || @name || '/.job.xml')}"
                       ditaval="${{valid.plan.ditaval.uri.{position()}}}"
                       ditaval-digest="${{valid.plan.digest.{position()}}}">
                <xsl:for-each select="label">
                  <label><xsl:value-of select="vp:ant(.)"/></label>
                </xsl:for-each>
              </profile>
            </xsl:for-each>
            <unfiltered job="{vp:ant(if ($shared) then $work-dir-uri || '_unfiltered/.job.xml' else base-uri($job))}"/>
            <xsl:if test="exists($scheme)">
              <scheme href="{vp:ant($located-scheme-uri)}"/>
            </xsl:if>
          </valid-run>
        </echoxml>
      </target>
    </project>
  </xsl:template>

  <!-- Move what a preprocess wrote into the shared temp directory to $to, an Ant path (relative:
       the work directory, which is then outside the temp directory). -->
  <xsl:template name="move-job">
    <xsl:param name="to" as="xs:string"/>
    <delete dir="{if (starts-with($to, '${')) then $to else vp:ant($to)}" quiet="true"/>
    <move todir="{if (starts-with($to, '${')) then $to else vp:ant($to)}">
      <fileset dir="{vp:ant($shared-temp-dir)}"/>
    </move>
  </xsl:template>

  <!-- Ant expands ${...} in attributes: literal text must double every '$'. -->
  <xsl:function name="vp:ant" as="xs:string">
    <xsl:param name="text" as="xs:string"/>
    <xsl:sequence select="replace($text, '\$', '\$\$')"/>
  </xsl:function>

  <!-- A DITAVAL path from valid.ditavals as an absolute platform path: relative paths are taken
       from the directory `dita` was started in (valid.base.dir). -->
  <xsl:function name="vp:absolute-path" as="xs:string">
    <xsl:param name="path" as="xs:string"/>
    <xsl:sequence select="if (starts-with($path, '/') or matches($path, '^[A-Za-z]:[\\/]') or $base-dir eq '')
                          then $path
                          else $base-dir || '/' || $path"/>
  </xsl:function>

</xsl:stylesheet>
