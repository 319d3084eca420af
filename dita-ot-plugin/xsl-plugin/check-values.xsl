<?xml version="1.0" encoding="UTF-8"?>
<!--
  Profiling values against the subject scheme, over DITA-OT's unfiltered job. DITA-OT only warns
  (DOTJ049W) and builds on; VALID must not index content whose scope rests on an undeclared value
  (a typo such as platform="v6" is excluded from every profile, silently). Output: one line per
  offending token, "path:line: message", sorted; empty when every value is declared. The Ant
  target fails the build with these lines.

  Which value is checked: the element's own value in its source file, found through @xtrf and
  @xtrc (qname and 1-based count), because the temp map holds cascaded values (mappull merges a
  parent's tokens into its children) and a bad value on a topichead would otherwise be reported on
  every child's line too. When the source cannot be read, the temp file's value is checked.
-->
<xsl:stylesheet version="3.0"
    xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
    xmlns:xs="http://www.w3.org/2001/XMLSchema"
    xmlns:vp="urn:valid:plugin"
    exclude-result-prefixes="#all">

  <xsl:include href="scheme.xsl"/>
  <xsl:include href="uri.xsl"/>


  <xsl:output method="text" encoding="UTF-8"/>

  <xsl:param name="scheme-uri" as="xs:string"/>

  <xsl:key name="by-name" match="*" use="name()"/>

  <xsl:variable name="job" select="/" as="document-node()"/>
  <xsl:variable name="scheme" select="doc($scheme-uri)" as="document-node()"/>
  <xsl:variable name="scheme-name" select="vp:decode(tokenize($scheme-uri, '/')[last()])"/>
  <!-- Every attribute the scheme binds is checked, as valid export does, not only the one the
       profiles are built for. -->
  <xsl:variable name="bound" select="vp:bound-attributes($scheme)" as="xs:string*"/>
  <xsl:variable name="src-base" as="xs:string"
      select="replace(string(/job/files/file[@input = 'true'][1]/@src), '/[^/]*$', '/')"/>

  <xsl:template match="/">
    <xsl:variable name="findings" as="element(finding)*">
      <xsl:for-each select="/job/files/file[@format = ('dita', 'ditamap')]">
        <xsl:variable name="temp" select="resolve-uri(@uri, base-uri($job))"/>
        <xsl:if test="doc-available($temp)">
          <xsl:for-each select="doc($temp)//*[@class][@xtrf][not(contains(@class, ' subjectScheme/'))]">
            <xsl:variable name="e" select="."/>
            <xsl:variable name="line" select="vp:line(@xtrc)"/>
            <xsl:for-each select="$bound[. = $e/@*[namespace-uri() = '']/local-name()]">
              <xsl:variable name="att" select="."/>
              <xsl:variable name="declared" select="vp:values($scheme, $att)"/>
              <xsl:for-each select="vp:tokens(string(vp:own-value($e, $att)))[not(. = $declared)]">
                <finding path="{vp:relative(string($e/@xtrf), $src-base)}" line="{$line}"
                         key="{$e/@xtrf}#{$e/@xtrc}" att="{$att}" value="{.}"/>
              </xsl:for-each>
            </xsl:for-each>
          </xsl:for-each>
        </xsl:if>
      </xsl:for-each>
    </xsl:variable>
    <!-- A conref'd element or a file listed twice appears more than once: report each source
         location, attribute and value once. -->
    <xsl:for-each-group select="$findings" group-by="@key || ' ' || @att || ' ' || @value">
      <xsl:sort select="@path"/>
      <xsl:sort select="xs:integer(@line)"/>
      <xsl:sort select="@att"/>
      <xsl:sort select="@value"/>
      <xsl:value-of select="@path || ':' || @line || ': @' || @att || ' value ''' || @value
        || ''' is not declared in subject scheme ' || $scheme-name || ' (declared: '
        || string-join(vp:values($scheme, @att), ', ') || ')&#10;'"/>
    </xsl:for-each-group>
  </xsl:template>

  <!-- The element's own attribute value in its source, else the temp file's value. -->
  <xsl:function name="vp:own-value" as="attribute()?">
    <xsl:param name="e" as="element()"/>
    <xsl:param name="att" as="xs:string"/>
    <xsl:variable name="qname" select="substring-before(string($e/@xtrc), ':')"/>
    <xsl:variable name="count" select="xs:integer(replace(string($e/@xtrc), '^[^:]*:(\d+);.*$', '$1'))"/>
    <xsl:variable name="source" select="if (doc-available(string($e/@xtrf)))
                                        then key('by-name', $qname, doc(string($e/@xtrf)))[$count]
                                        else ()"/>
    <xsl:sequence select="if (exists($source))
                          then $source/@*[local-name() = $att][namespace-uri() = '']
                          else $e/@*[local-name() = $att][namespace-uri() = '']"/>
  </xsl:function>

  <!-- Line from @xtrc (qname:count;line:col); 0 when unknown. -->
  <xsl:function name="vp:line" as="xs:integer">
    <xsl:param name="xtrc" as="attribute()?"/>
    <xsl:sequence select="if (matches(string($xtrc), ';\d+:')) then xs:integer(replace(string($xtrc), '^.*;(\d+):.*$', '$1')) else 0"/>
  </xsl:function>

</xsl:stylesheet>
