<?xml version="1.0" encoding="UTF-8"?>
<!--
  The input map of a DITA-OT job, as plain text for Ant's loadfile: the main output is the map's
  directory as a platform path, $root-file (relative to the output) gets the map's name without
  its extension. Input: the unfiltered job's .job.xml; the input map is the file with @input="true",
  its @src a file: URI.
-->
<xsl:stylesheet version="3.0"
    xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
    xmlns:xs="http://www.w3.org/2001/XMLSchema"
    xmlns:vp="urn:valid:plugin"
    exclude-result-prefixes="#all">

  <xsl:include href="uri.xsl"/>

  <xsl:output method="text" encoding="UTF-8"/>

  <xsl:param name="root-file" as="xs:string"/>

  <xsl:template match="/">
    <xsl:variable name="src" select="string((job/files/file[@input = 'true'])[1]/@src)"/>
    <xsl:if test="not(starts-with($src, 'file:'))">
      <xsl:message terminate="yes" select="'VALID: the job names no input map as a file: URI (' || $src || ')'"/>
    </xsl:if>
    <xsl:variable name="path" select="vp:decode(replace(replace($src, '^file:(//[^/]*)?', ''), '^/([A-Za-z]:)', '$1'))"/>
    <xsl:value-of select="replace($path, '/[^/]*$', '')"/>
    <xsl:result-document href="{$root-file}" method="text" encoding="UTF-8">
      <xsl:value-of select="replace(tokenize($path, '/')[last()], '^(.+?)(\.[^.]*)?$', '$1')"/>
    </xsl:result-document>
  </xsl:template>

</xsl:stylesheet>
