<?xml version="1.0" encoding="UTF-8"?>
<!--
  Chunk digests for the plugin, hashed by Ant's checksum task instead of SHA-256 in XSLT
  (xsl/sha256.xsl is correct but far too slow under Saxon-HE for a real guide). The export
  stylesheet runs with digests=deferred, as `valid export` runs it, and the plugin then does what
  valid.export.xslt.fill_digests() does in Python, in three steps (build_valid-index.xml):

    step=texts  writes each distinct chunk text of the deferred export, as UTF-8 with no
                newline added, to $texts-dir-uri/N.txt (N: the line of its first occurrence);
                the main output is the number of files written.
    (Ant)       <checksum algorithm="SHA-256" pattern="{0} {1}"> hashes those files.
    step=fill   reads the digest lines back ($digests-uri: "HEX N.txt" per line) and writes the
                export with each chunk line's "deferred" digest replaced by its text's digest.

  Only the tail of a chunk line changes (digest is its last key); every other byte stays as the
  export stylesheet wrote it. Lines are split on LF only and joined with LF again, so a CR the
  JSON could hold raw (it never does: JSON escapes it) would survive too.

  The texts are read back with parse-json, which gives each text exactly as xml-to-json (json.xsl)
  wrote it: that writer escapes every control character (\u0085, not the raw character, which
  Saxon's parse-json would not give back).

  Input: any document (Ant's xslt task needs one); the export is read from $export-uri.
-->
<xsl:stylesheet version="3.0"
    xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
    xmlns:xs="http://www.w3.org/2001/XMLSchema"
    xmlns:map="http://www.w3.org/2005/xpath-functions/map"
    xmlns:vp="urn:valid:plugin"
    exclude-result-prefixes="#all">

  <xsl:output method="text" encoding="UTF-8"/>

  <xsl:param name="step" as="xs:string"/>
  <xsl:param name="export-uri" as="xs:string"/>
  <xsl:param name="texts-dir-uri" as="xs:string" select="''"/>
  <xsl:param name="digests-uri" as="xs:string" select="''"/>

  <!-- What the export stylesheet writes at the end of a chunk line with digests=deferred. -->
  <xsl:variable name="vp:placeholder" as="xs:string" select="',&quot;digest&quot;:&quot;deferred&quot;}'"/>

  <xsl:variable name="vp:lines" as="xs:string*" select="tokenize(unparsed-text($export-uri, 'UTF-8'), '&#10;')"/>

  <!-- Line number -> text, for every chunk line that waits for its digest. -->
  <xsl:variable name="vp:texts" as="map(xs:integer, xs:string)" select="map:merge(
    for $i in 1 to count($vp:lines)
    return $vp:lines[$i][vp:is-deferred(.)] ! map{$i: parse-json(.)?text})"/>

  <!-- Text -> the line of its first occurrence: one file, one digest per distinct text. -->
  <xsl:variable name="vp:first-line" as="map(xs:string, xs:integer)" select="map:merge(
    for $i in sort(map:keys($vp:texts)) return map{$vp:texts($i): $i},
    map{'duplicates': 'use-first'})"/>

  <xsl:template match="/">
    <xsl:choose>
      <xsl:when test="$step eq 'texts'">
        <xsl:call-template name="vp:write-texts"/>
      </xsl:when>
      <xsl:when test="$step eq 'fill'">
        <xsl:call-template name="vp:fill"/>
      </xsl:when>
      <xsl:otherwise>
        <xsl:message terminate="yes" select="'VALID: digests.xsl: step must be texts or fill, not ''' || $step || ''''"/>
      </xsl:otherwise>
    </xsl:choose>
  </xsl:template>

  <xsl:template name="vp:write-texts">
    <xsl:for-each select="map:keys($vp:first-line)">
      <xsl:result-document href="{$texts-dir-uri}{$vp:first-line(.)}.txt" method="text" encoding="UTF-8">
        <xsl:value-of select="."/>
      </xsl:result-document>
    </xsl:for-each>
    <xsl:value-of select="map:size($vp:first-line)"/>
  </xsl:template>

  <xsl:template name="vp:fill">
    <xsl:variable name="digest-of" as="map(xs:integer, xs:string)" select="vp:read-digests()"/>
    <xsl:value-of select="string-join(
      for $i in 1 to count($vp:lines)
      return if (map:contains($vp:texts, $i))
             then vp:with-digest($vp:lines[$i], $digest-of($vp:first-line($vp:texts($i))))
             else $vp:lines[$i],
      '&#10;')"/>
  </xsl:template>

  <xsl:function name="vp:is-deferred" as="xs:boolean">
    <xsl:param name="line" as="xs:string"/>
    <xsl:sequence select="starts-with($line, '{&quot;kind&quot;:&quot;chunk&quot;,') and ends-with($line, $vp:placeholder)"/>
  </xsl:function>

  <xsl:function name="vp:with-digest" as="xs:string">
    <xsl:param name="line" as="xs:string"/>
    <xsl:param name="digest" as="xs:string"/>
    <xsl:sequence select="substring($line, 1, string-length($line) - string-length($vp:placeholder))
                          || ',&quot;digest&quot;:&quot;' || $digest || '&quot;}'"/>
  </xsl:function>

  <!-- "HEX N.txt" per line (Ant writes one file per text; the build concatenates them), checked:
       a text without its digest stops the build rather than write a wrong export. -->
  <xsl:function name="vp:read-digests" as="map(xs:integer, xs:string)">
    <xsl:variable name="read" as="map(xs:integer, xs:string)" select="map:merge(
      unparsed-text-lines($digests-uri, 'UTF-8')[normalize-space()]
      ! (let $parts := tokenize(normalize-space(.), ' ')
         return map{xs:integer(substring-before($parts[2], '.txt')): lower-case($parts[1])}))"/>
    <xsl:variable name="missing" as="xs:integer*" select="
      map:keys($vp:first-line) ! $vp:first-line(.)[not(map:contains($read, .))]"/>
    <xsl:sequence select="if (empty($missing)) then $read else error(xs:QName('vp:digests'),
      'VALID: no SHA-256 digest in ' || $digests-uri || ' for the text of export line ' || min($missing))"/>
  </xsl:function>

</xsl:stylesheet>
