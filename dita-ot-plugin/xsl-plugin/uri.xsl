<?xml version="1.0" encoding="UTF-8"?>
<!--
  URI helpers for the plugin's own stylesheets: DITA-OT writes source locations as percent-encoded
  file: URIs (@xtrf, .job.xml @src); reports and the run document want readable relative paths.
-->
<xsl:stylesheet version="3.0"
    xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
    xmlns:xs="http://www.w3.org/2001/XMLSchema"
    xmlns:vp="urn:valid:plugin"
    exclude-result-prefixes="#all">

  <!-- Percent-decoding (UTF-8): %C3%A9 becomes é. Text without '%' is returned unchanged. -->
  <xsl:function name="vp:decode" as="xs:string">
    <xsl:param name="text" as="xs:string?"/>
    <xsl:variable name="parts" select="analyze-string(string($text), '(%[0-9A-Fa-f]{2})+')"/>
    <xsl:sequence select="string-join($parts/* ! (if (self::*:match)
                                                  then vp:utf8(vp:bytes(string(.)))
                                                  else string(.)))"/>
  </xsl:function>

  <xsl:function name="vp:bytes" as="xs:integer*">
    <xsl:param name="escaped" as="xs:string"/>
    <xsl:sequence select="tokenize(substring($escaped, 2), '%')
                          ! (vp:hex(substring(., 1, 1)) * 16 + vp:hex(substring(., 2, 1)))"/>
  </xsl:function>

  <xsl:function name="vp:hex" as="xs:integer">
    <xsl:param name="digit" as="xs:string"/>
    <xsl:sequence select="string-length(substring-before('0123456789abcdef', lower-case($digit)))"/>
  </xsl:function>

  <!-- Decode UTF-8 bytes to a string; an invalid sequence decodes byte by byte (Latin-1), which
       keeps the function total for hand-written URIs. -->
  <xsl:function name="vp:utf8" as="xs:string">
    <xsl:param name="bytes" as="xs:integer*"/>
    <xsl:variable name="b" select="$bytes[1]"/>
    <xsl:variable name="len" select="if (empty($b)) then 0
                                     else if ($b lt 128) then 1
                                     else if ($b ge 240) then 4
                                     else if ($b ge 224) then 3
                                     else if ($b ge 192) then 2 else 1"/>
    <xsl:variable name="tail" select="subsequence($bytes, 2, $len - 1)"/>
    <xsl:choose>
      <xsl:when test="empty($b)">
        <xsl:sequence select="''"/>
      </xsl:when>
      <xsl:when test="$len gt 1 and count($tail) eq $len - 1 and (every $t in $tail satisfies $t ge 128 and $t lt 192)">
        <xsl:variable name="lead" select="$b mod (if ($len eq 2) then 32 else if ($len eq 3) then 16 else 8)"/>
        <xsl:variable name="cp" select="fold-left($tail, $lead, function($acc, $t) { $acc * 64 + $t mod 64 })"/>
        <xsl:sequence select="codepoints-to-string($cp) || vp:utf8(subsequence($bytes, $len + 1))"/>
      </xsl:when>
      <xsl:otherwise>
        <xsl:sequence select="codepoints-to-string($b) || vp:utf8(subsequence($bytes, 2))"/>
      </xsl:otherwise>
    </xsl:choose>
  </xsl:function>

  <!-- The path of $uri relative to the directory URI $base (ending in '/'), decoded; the decoded
       URI itself when it is not under $base. -->
  <xsl:function name="vp:relative" as="xs:string">
    <xsl:param name="uri" as="xs:string"/>
    <xsl:param name="base" as="xs:string"/>
    <xsl:sequence select="vp:decode(if (starts-with($uri, $base)) then substring($uri, string-length($base) + 1) else $uri)"/>
  </xsl:function>

</xsl:stylesheet>
