<?xml version="1.0" encoding="UTF-8"?>
<!--
  A source file DITA-OT does not preprocess (the subject scheme given as valid.scheme), copied with
  the debug attributes preprocess2 would have given it: @xtrf (its URI) and @xtrc
  ("qname:count;line:1", count among same-named elements, line where the start tag ends). Then the shared
  stylesheets report its elements with a file and line, as `valid export` does.

  XSLT has no line numbers (Saxon-HE has no saxon:line-number), so they come from the file's text:
  with comments, CDATA sections, processing instructions and the DOCTYPE blanked out (their line
  breaks kept), every remaining "<" followed by a name opens a start tag, and the n-th start tag
  belongs to the n-th element in document order.
  Plugin-only: xsl/ (shared with `valid export`) never imports this module.
-->
<xsl:stylesheet version="3.0"
    xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
    xmlns:xs="http://www.w3.org/2001/XMLSchema"
    xmlns:fn="http://www.w3.org/2005/xpath-functions"
    xmlns:vp="urn:valid:plugin"
    exclude-result-prefixes="#all">

  <!-- The document with @xtrf/@xtrc on every element (no DOCTYPE; DTD-defaulted attributes stay). -->
  <xsl:function name="vp:located" as="document-node()">
    <xsl:param name="doc" as="document-node()"/>
    <xsl:variable name="uri" select="string(document-uri($doc))"/>
    <xsl:document>
      <xsl:apply-templates select="$doc/*" mode="vp:locate">
        <xsl:with-param name="uri" select="$uri" tunnel="yes"/>
        <xsl:with-param name="lines" select="vp:start-tag-lines(unparsed-text($uri))" tunnel="yes"/>
      </xsl:apply-templates>
    </xsl:document>
  </xsl:function>

  <xsl:template match="*" mode="vp:locate">
    <xsl:param name="uri" as="xs:string" tunnel="yes"/>
    <xsl:param name="lines" as="xs:integer*" tunnel="yes"/>
    <xsl:variable name="n" select="count(ancestor::* | preceding::*) + 1"/>
    <xsl:variable name="same" select="(ancestor::* | preceding::*)[node-name() eq node-name(current())]"/>
    <xsl:copy>
      <xsl:copy-of select="@* except (@xtrf, @xtrc)"/>
      <xsl:attribute name="xtrf" select="$uri"/>
      <xsl:attribute name="xtrc" select="name() || ':' || count($same) + 1 || ';' || ($lines[$n], 0)[1] || ':1'"/>
      <xsl:apply-templates mode="vp:locate"/>
    </xsl:copy>
  </xsl:template>

  <xsl:template match="text() | comment() | processing-instruction()" mode="vp:locate">
    <xsl:copy/>
  </xsl:template>

  <!-- A start tag (attribute values may hold '>'). -->
  <xsl:variable name="vp:start-tag" as="xs:string">&lt;[^/!?\s][^\s/&gt;]*(\s+[^\s=]+\s*=\s*("[^"]*"|'[^']*'))*\s*/?&gt;</xsl:variable>

  <!-- The line where each start tag ends (as DITA-OT's @xtrc and lxml count), in document order. -->
  <xsl:function name="vp:start-tag-lines" as="xs:integer*">
    <xsl:param name="text" as="xs:string"/>
    <xsl:iterate select="analyze-string(vp:blank-non-elements($text), $vp:start-tag)/*">
      <xsl:param name="line" as="xs:integer" select="1"/>
      <xsl:variable name="after" select="$line + string-length(replace(., '[^\n]', ''))"/>
      <xsl:if test="self::fn:match">
        <xsl:sequence select="$after"/>
      </xsl:if>
      <xsl:next-iteration>
        <xsl:with-param name="line" select="$after"/>
      </xsl:next-iteration>
    </xsl:iterate>
  </xsl:function>

  <!-- Comments, CDATA sections, processing instructions and the DOCTYPE (with its internal
       subset) replaced by their line breaks: none of them holds a start tag. -->
  <xsl:function name="vp:blank-non-elements" as="xs:string">
    <xsl:param name="text" as="xs:string"/>
    <xsl:variable name="pattern"
        select="'&lt;!--.*?--&gt;|&lt;!\[CDATA\[.*?\]\]&gt;|&lt;\?.*?\?&gt;|&lt;!DOCTYPE[^\[&gt;]*(\[.*?\])?\s*&gt;'"/>
    <xsl:sequence select="string-join(
      for $part in analyze-string($text, $pattern, 's')/*
      return if ($part/self::fn:match) then replace($part, '[^\n]', '') else string($part))"/>
  </xsl:function>

</xsl:stylesheet>
