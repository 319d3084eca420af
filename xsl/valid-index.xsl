<?xml version="1.0" encoding="UTF-8"?>
<!--
  VALID index export: chunk DITA-OT preprocess2 jobs (one per profile) and merge them into JSON
  lines with a scope per chunk. The same stylesheet runs in `valid export` (saxonche) and in the
  DITA-OT plugin (Saxon-HE); see docs/architecture.md for the contract and xsl/README.md for the
  decisions taken here.

  Input: a run document
    <valid-run schema-version exporter-version stylesheet-digest scheme-digest source-commit
               map attribute src-base>
      <profile name job ditaval-digest ditaval?><label>...</label>*</profile>+
      <unfiltered job/>?
      <scheme href/>?
      <warning path line feature>message</warning>*
    </valid-run>
  (@job, @ditaval and @href are resolved against the run document's URI; @ditaval, the DITAVAL
  the profile was built with, gives the header's `keeps`, see keeps.xsl.)

  Output: the header line, then the chunk lines (text, UTF-8, one JSON object per line).

  Parameters:
    digests  "sha256" (default) computes each chunk's digest here; "deferred" writes the
             placeholder "deferred" instead, for a caller that fills in SHA-256 itself.
    run      the run document's URI, to use instead of the transformation's source document.
-->
<xsl:stylesheet version="3.0"
  xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
  xmlns:xs="http://www.w3.org/2001/XMLSchema"
  xmlns:map="http://www.w3.org/2005/xpath-functions/map"
  xmlns:v="urn:valid:xsl"
  exclude-result-prefixes="#all"
  expand-text="yes"
  default-collation="http://www.w3.org/2005/xpath-functions/collation/codepoint">

  <xsl:import href="sha256.xsl"/>
  <xsl:import href="source.xsl"/>
  <xsl:import href="text.xsl"/>
  <xsl:import href="chunk.xsl"/>
  <xsl:import href="job.xsl"/>
  <xsl:import href="merge.xsl"/>
  <xsl:import href="owned.xsl"/>
  <xsl:import href="keeps.xsl"/>
  <xsl:import href="json.xsl"/>
  <xsl:import href="topic-types.xsl"/>
  <xsl:import href="coverage.xsl"/>

  <xsl:output method="text" encoding="UTF-8"/>

  <xsl:param name="digests" as="xs:string" select="'sha256'"/>
  <!-- The run document's URI, when the transformation's source is something else (a build tool
       that must name a source file, such as Ant's xslt task given .job.xml). -->
  <xsl:param name="run" as="xs:string" select="''"/>

  <xsl:template match="/">
    <xsl:variable name="document" select="if ($run ne '') then v:run-document($run) else ."/>
    <xsl:if test="not($document/valid-run)">
      <xsl:message terminate="yes" error-code="v:run">not a VALID run document: the root element is &lt;{name($document/*)}&gt;, not &lt;valid-run&gt;</xsl:message>
    </xsl:if>
    <xsl:apply-templates select="$document/valid-run"/>
  </xsl:template>

  <xsl:function name="v:run-document" as="document-node()">
    <xsl:param name="uri" as="xs:string"/>
    <xsl:if test="not(doc-available($uri))">
      <xsl:message terminate="yes" error-code="v:run">cannot read run document {v:file-path($uri)}: missing or not well-formed XML</xsl:message>
    </xsl:if>
    <xsl:sequence select="doc($uri)"/>
  </xsl:function>

  <xsl:template match="valid-run">
    <xsl:variable name="run" select="."/>
    <xsl:variable name="run-uri" select="string(base-uri(.))"/>
    <xsl:call-template name="v:check-run"/>
    <xsl:variable name="src-base" select="if (ends-with(@src-base, '/')) then string(@src-base) else @src-base || '/'"/>
    <xsl:variable name="names" as="xs:string+" select="profile/@name ! string()"/>

    <xsl:variable name="jobs" as="map(*)+" select="
      profile ! v:load-job(string(resolve-uri(@job, $run-uri)), string(@name))"/>
    <xsl:variable name="unfiltered" as="map(*)?" select="
      unfiltered[1] ! v:load-job(string(resolve-uri(@job, $run-uri)), '_unfiltered')"/>
    <xsl:variable name="scheme" as="element()?" select="v:scheme($run, ($unfiltered, $jobs)[1]?map)"/>
    <!-- Each build's breadcrumbs start with its own filtered map title, as its DITA-OT output shows it
         (the unfiltered title of a guide for several editions names all of them). -->
    <xsl:variable name="records" as="map(*)*" select="$jobs ! v:job-chunks(., $src-base, v:map-title(?map))"/>
    <xsl:variable name="unfiltered-records" as="map(*)*" select="$unfiltered ! v:job-chunks(., $src-base, v:map-title(?map))"/>
    <xsl:variable name="lines" as="map(*)*" select="
      v:merge($records, $names, v:topic-scope($jobs, $src-base), $src-base)"/>
    <xsl:variable name="digest-of" as="map(*)" select="
      if ($digests eq 'deferred') then map{}
      else map:merge(distinct-values($lines ! ?text) ! map{.: v:sha256(.)})"/>

    <xsl:variable name="header" select="map{
      'schema-version': string((@schema-version[normalize-space()], '1.0')[1]),
      'map': string(@map),
      'attribute': string(@attribute),
      'profiles': profile ! map{
        'name': string(@name),
        'labels': v:labels(., $scheme),
        'ditaval-digest': string(@ditaval-digest),
        'keeps': v:keeps(v:profile-ditaval(., $run-uri), $scheme)},
      'scheme-digest': string(@scheme-digest),
      'exporter-version': string(@exporter-version),
      'stylesheet-digest': string(@stylesheet-digest),
      'source-commit': string(@source-commit),
      'chunks': count($lines),
      'kept-by-no-profile':
        if (exists($unfiltered))
        then v:kept-by-no-profile($unfiltered-records, $records)
        else 0,
      'not-chunked': v:not-chunked($unfiltered, $unfiltered-records, $jobs, $records, $src-base),
      'per-profile': for $name in $names return map{'name': $name, 'count': count($lines[?in = $name])},
      'owned-values': v:owned-values($jobs, $names, $scheme, $src-base),
      'warnings': warning ! map{
        'path': string(@path),
        'line': if (@line castable as xs:integer) then xs:integer(@line) else 0,
        'feature': string(@feature),
        'message': normalize-space(.)}
    }"/>

    <xsl:sequence select="string-join((
      v:header-line($header),
      $lines ! v:chunk-line(., $names, if ($digests eq 'deferred') then 'deferred' else $digest-of(?text))
      ), '&#10;') || '&#10;'"/>
  </xsl:template>

  <xsl:template name="v:check-run">
    <xsl:if test="not(normalize-space(@src-base))">
      <xsl:message terminate="yes" error-code="v:run">run document {v:file-path(base-uri(.))}: &lt;valid-run&gt; has no src-base</xsl:message>
    </xsl:if>
    <xsl:if test="empty(profile)">
      <xsl:message terminate="yes" error-code="v:run">run document {v:file-path(base-uri(.))} lists no profile</xsl:message>
    </xsl:if>
    <xsl:for-each select="profile">
      <xsl:if test="not(normalize-space(@name))">
        <xsl:message terminate="yes" error-code="v:run">run document {v:file-path(base-uri(.))}: profile {position()} has no name</xsl:message>
      </xsl:if>
      <xsl:if test="not(normalize-space(@job))">
        <xsl:message terminate="yes" error-code="v:run">run document {v:file-path(base-uri(.))}: profile {@name} has no job</xsl:message>
      </xsl:if>
      <xsl:if test="@name = preceding-sibling::profile/@name">
        <xsl:message terminate="yes" error-code="v:run">run document {v:file-path(base-uri(.))}: profile {@name} is listed twice</xsl:message>
      </xsl:if>
    </xsl:for-each>
    <xsl:if test="unfiltered[not(normalize-space(@job))]">
      <xsl:message terminate="yes" error-code="v:run">run document {v:file-path(base-uri(.))}: &lt;unfiltered&gt; has no job</xsl:message>
    </xsl:if>
  </xsl:template>

  <xsl:function name="v:job-chunks" as="map(*)*">
    <xsl:param name="job" as="map(*)"/>
    <xsl:param name="src-base" as="xs:string"/>
    <xsl:param name="map-title" as="xs:string"/>
    <xsl:variable name="context" select="map{
      'profile': $job?profile, 'src-base': $src-base, 'job-dir': $job?dir, 'map-title': $map-title,
      'renamed': $job?renamed}"/>
    <xsl:sequence select="$job?topics ! v:topic-chunks(., $context)"/>
  </xsl:function>

  <!-- The subject scheme: the run's <scheme href> file, else subjectdefs inlined into the map. -->
  <xsl:function name="v:scheme" as="element()?">
    <xsl:param name="run" as="element()"/>
    <xsl:param name="map" as="element()"/>
    <xsl:variable name="href" select="$run/scheme[1]/@href"/>
    <xsl:choose>
      <xsl:when test="normalize-space($href)">
        <xsl:variable name="uri" select="string(resolve-uri($href, base-uri($run)))"/>
        <xsl:if test="not(doc-available($uri))">
          <xsl:message terminate="yes" error-code="v:run">cannot read subject scheme {v:file-path($uri)}: missing or not well-formed XML</xsl:message>
        </xsl:if>
        <xsl:sequence select="doc($uri)/*"/>
      </xsl:when>
      <xsl:otherwise>
        <xsl:sequence select="$map[.//*[v:is(., ' subjectScheme/subjectdef ')]]"/>
      </xsl:otherwise>
    </xsl:choose>
  </xsl:function>

  <!-- The root map's title: bookmap mainbooktitle, else title, else @title. -->
  <xsl:function name="v:map-title" as="xs:string">
    <xsl:param name="map" as="element()"/>
    <xsl:variable name="booktitle" select="$map/*[v:is(., ' bookmap/booktitle ')][1]"/>
    <xsl:sequence select="(
      $booktitle/*[v:is(., ' bookmap/mainbooktitle ')] ! v:title-text(.),
      ($map/*[v:is(., ' topic/title ')] except $booktitle) ! v:title-text(.),
      normalize-space($map/@title))[. ne ''][1] => string()"/>
  </xsl:function>

</xsl:stylesheet>
