<?xml version="1.0" encoding="UTF-8"?>
<!--
  Where an element came from: its source file (from @xtrf), its line (from @xtrc), and its
  positional path inside the source file.

  @xtrc is DITA-OT's debug attribute "qname:count;line:col": count is the element's 1-based position
  among the elements with the same qname in its source file, counted before filtering, so it names
  the same source element in every profile's build.

  The xpath comes from @valid:xpath when the job has it (`valid export` writes it). Otherwise (a real
  DITA-OT job) the source file @xtrf is opened and the element found again by @xtrc's qname and
  count; when the source file cannot be read the xpath is "".
-->
<xsl:stylesheet version="3.0"
  xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
  xmlns:xs="http://www.w3.org/2001/XMLSchema"
  xmlns:map="http://www.w3.org/2005/xpath-functions/map"
  xmlns:v="urn:valid:xsl"
  xmlns:valid="urn:valid:dita"
  exclude-result-prefixes="#all">

  <!-- DITA-OT counts only DITA elements (no namespace; foreign vocabularies such as SVG are not). -->
  <xsl:key name="v:by-qname" match="*[namespace-uri() eq '']" use="name()"/>

  <!-- map{'path', 'line', 'col', 'xpath'} for an element of a temp file (or of a raw source file,
       which has no @xtrf: then the element's own document is its source). -->
  <xsl:function name="v:source" as="map(*)">
    <xsl:param name="e" as="element()"/>
    <xsl:param name="src-base" as="xs:string"/>
    <xsl:variable name="xtrc" as="map(*)?" select="v:xtrc($e)"/>
    <xsl:variable name="file" as="xs:string" select="
      if ($e/@xtrf) then string($e/@xtrf) else string(document-uri(root($e)))"/>
    <xsl:sequence select="map{
      'path': v:relative-path($file, $src-base),
      'line': ($xtrc?line, 0)[1],
      'col': ($xtrc?col, 0)[1],
      'xpath':
        if ($e/@valid:xpath) then string($e/@valid:xpath)
        else if (not($e/@xtrf)) then v:positional-path($e)
        else if (exists($xtrc)) then v:locate-in-source($file, $xtrc?qname, $xtrc?count)
        else ''
    }"/>
  </xsl:function>

  <!-- @xtrc parsed: map{'qname', 'count', 'line', 'col'} (line and col 0 when DITA-OT had no
       locator and wrote only "qname:count"), or () when absent or malformed. -->
  <xsl:function name="v:xtrc" as="map(*)?">
    <xsl:param name="e" as="element()"/>
    <xsl:variable name="pattern" select="'^([^;]+):(\d+)(;(\d+):(\d+))?$'"/>
    <xsl:variable name="x" select="string($e/@xtrc)"/>
    <xsl:if test="matches($x, $pattern)">
      <xsl:sequence select="map{
        'qname': replace($x, $pattern, '$1'),
        'count': xs:integer(replace($x, $pattern, '$2')),
        'line': xs:integer((replace($x, $pattern, '$4')[. ne ''], '0')[1]),
        'col': xs:integer((replace($x, $pattern, '$5')[. ne ''], '0')[1])
      }"/>
    </xsl:if>
  </xsl:function>

  <xsl:function name="v:locate-in-source" as="xs:string">
    <xsl:param name="file" as="xs:string"/>
    <xsl:param name="qname" as="xs:string"/>
    <xsl:param name="count" as="xs:integer"/>
    <xsl:variable name="found" as="element()?" select="
      if (doc-available($file)) then key('v:by-qname', $qname, doc($file))[$count] else ()"/>
    <xsl:sequence select="if (exists($found)) then v:positional-path($found) else ''"/>
  </xsl:function>

  <!-- /task[1]/taskbody[1]/steps[1]: unprefixed names, positions among same-named siblings. -->
  <xsl:function name="v:positional-path" as="xs:string">
    <xsl:param name="e" as="element()"/>
    <xsl:sequence select="string-join(
      for $a in $e/ancestor-or-self::*
      return '/' || local-name($a) || '[' || count($a/preceding-sibling::*[node-name() eq node-name($a)]) + 1 || ']')"/>
  </xsl:function>

  <!-- The same file: URI spelled file:/x, file:///x or file://localhost/x. -->
  <xsl:function name="v:normalize-uri" as="xs:string">
    <xsl:param name="uri" as="xs:string"/>
    <!-- Most URIs are spelled file:/x already; the regular expression is the slow path. -->
    <xsl:sequence select="
      if (starts-with($uri, 'file:/') and not(starts-with($uri, 'file://'))) then $uri
      else replace($uri, '^file:(//(localhost)?)?/', 'file:/')"/>
  </xsl:function>

  <!-- $uri relative to the directory $base ('/'-separated, '..' where needed, percent-decoded).
       A URI with another scheme than $base's is returned as it is. -->
  <xsl:function name="v:relative-path" as="xs:string">
    <xsl:param name="uri" as="xs:string"/>
    <xsl:param name="base" as="xs:string"/>
    <xsl:variable name="u" select="v:normalize-uri($uri)"/>
    <xsl:variable name="b" select="v:normalize-uri(if (ends-with($base, '/')) then $base else $base || '/')"/>
    <xsl:choose>
      <xsl:when test="starts-with($u, $b)">
        <xsl:sequence select="v:percent-decode(substring($u, string-length($b) + 1))"/>
      </xsl:when>
      <xsl:when test="substring-before($u, ':') ne substring-before($b, ':')">
        <xsl:sequence select="$uri"/>
      </xsl:when>
      <xsl:otherwise>
        <xsl:variable name="us" select="tokenize(substring-after($u, ':'), '/')"/>
        <xsl:variable name="bs" select="tokenize(substring-after($b, ':'), '/')[position() lt last()]"/>
        <xsl:variable name="common" as="xs:integer" select="
          (for $i in 1 to min((count($us) - 1, count($bs))) return $i[$us[$i] ne $bs[$i]], min((count($us), count($bs) + 1)))[1] - 1"/>
        <xsl:sequence select="v:percent-decode(string-join((
          (for $i in $common + 1 to count($bs) return '..'), subsequence($us, $common + 1)), '/'))"/>
      </xsl:otherwise>
    </xsl:choose>
  </xsl:function>

  <!-- %XX escapes decoded as UTF-8. -->
  <xsl:function name="v:percent-decode" as="xs:string">
    <xsl:param name="s" as="xs:string"/>
    <xsl:choose>
      <xsl:when test="not(contains($s, '%'))">
        <xsl:sequence select="$s"/>
      </xsl:when>
      <xsl:otherwise>
        <xsl:variable name="parts" as="xs:string*">
          <xsl:analyze-string select="$s" regex="(%[0-9A-Fa-f]{{2}})+">
            <xsl:matching-substring>
              <xsl:sequence select="v:utf8-decode(
                for $hex in tokenize(substring(., 2), '%') return v:hex-value($hex))"/>
            </xsl:matching-substring>
            <xsl:non-matching-substring>
              <xsl:sequence select="."/>
            </xsl:non-matching-substring>
          </xsl:analyze-string>
        </xsl:variable>
        <xsl:sequence select="string-join($parts)"/>
      </xsl:otherwise>
    </xsl:choose>
  </xsl:function>

  <xsl:function name="v:hex-value" as="xs:integer">
    <xsl:param name="hex" as="xs:string"/>
    <xsl:variable name="digits" select="'0123456789ABCDEF'"/>
    <xsl:sequence select="
      string-length(substring-before($digits, upper-case(substring($hex, 1, 1)))) * 16
      + string-length(substring-before($digits, upper-case(substring($hex, 2, 1))))"/>
  </xsl:function>

  <!-- Code points from UTF-8 bytes; a malformed sequence becomes U+FFFD. -->
  <xsl:function name="v:utf8-decode" as="xs:string">
    <xsl:param name="bytes" as="xs:integer*"/>
    <xsl:variable name="codepoints" as="xs:integer*">
      <xsl:iterate select="$bytes">
        <xsl:param name="cp" as="xs:integer" select="0"/>
        <xsl:param name="pending" as="xs:integer" select="0"/>
        <xsl:on-completion select="65533[$pending gt 0]"/>
        <xsl:choose>
          <xsl:when test=". lt 128">
            <xsl:sequence select="65533[$pending gt 0], ."/>
            <xsl:next-iteration><xsl:with-param name="pending" select="0"/></xsl:next-iteration>
          </xsl:when>
          <xsl:when test=". lt 192">
            <xsl:variable name="next" select="$cp * 64 + . mod 64"/>
            <xsl:sequence select="if ($pending eq 1) then $next else if ($pending eq 0) then 65533 else ()"/>
            <xsl:next-iteration>
              <xsl:with-param name="cp" select="$next"/>
              <xsl:with-param name="pending" select="max(($pending - 1, 0))"/>
            </xsl:next-iteration>
          </xsl:when>
          <xsl:otherwise>
            <xsl:sequence select="65533[$pending gt 0]"/>
            <xsl:next-iteration>
              <xsl:with-param name="cp" select="if (. lt 224) then . mod 32 else if (. lt 240) then . mod 16 else . mod 8"/>
              <xsl:with-param name="pending" select="if (. lt 224) then 1 else if (. lt 240) then 2 else 3"/>
            </xsl:next-iteration>
          </xsl:otherwise>
        </xsl:choose>
      </xsl:iterate>
    </xsl:variable>
    <xsl:sequence select="codepoints-to-string($codepoints)"/>
  </xsl:function>

</xsl:stylesheet>
