<?xml version="1.0" encoding="UTF-8"?>
<!--
  JSON lines. Each line is built as the XPath 3.1 XML representation of JSON (fn:map, fn:string,
  ...) and serialized with xml-to-json, so keys come out in exactly the order written here: the
  field order of valid.contracts.ExportHeader and valid.contracts.Chunk. xml-to-json escapes "/" as
  "\/"; that escape is undone (it is optional in JSON) to keep paths readable.
-->
<xsl:stylesheet version="3.0"
  xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
  xmlns:xs="http://www.w3.org/2001/XMLSchema"
  xmlns:fn="http://www.w3.org/2005/xpath-functions"
  xmlns:map="http://www.w3.org/2005/xpath-functions/map"
  xmlns:v="urn:valid:xsl"
  exclude-result-prefixes="#all"
  expand-text="yes">

  <xsl:function name="v:json" as="xs:string">
    <xsl:param name="tree" as="element(fn:map)"/>
    <!-- Every "/" in the output is escaped, so each "\/" is an escape of "/" (a literal backslash
         before a slash comes out as "\\\/"). -->
    <xsl:sequence select="replace(xml-to-json($tree), '\\/', '/')"/>
  </xsl:function>

  <!-- $header: map{schema-version, map, attribute, profiles (maps: name, labels, ditaval-digest,
       keeps (maps: attribute, values (array of maps: value, names))),
       scheme-digest, exporter-version, stylesheet-digest, source-commit, chunks, kept-by-no-profile,
       per-profile (maps: name, count), owned-values, warnings (maps: path, line, feature, message)} -->
  <xsl:function name="v:header-line" as="xs:string">
    <xsl:param name="header" as="map(*)"/>
    <xsl:variable name="tree" as="element(fn:map)">
      <fn:map>
        <fn:string key="kind">header</fn:string>
        <fn:string key="schema_version">{$header?schema-version}</fn:string>
        <fn:string key="map">{$header?map}</fn:string>
        <xsl:sequence select="v:string-or-null('attribute', $header?attribute)"/>
        <fn:array key="profiles">
          <xsl:for-each select="$header?profiles">
            <fn:map>
              <fn:string key="name">{?name}</fn:string>
              <xsl:sequence select="v:strings('labels', ?labels)"/>
              <fn:string key="ditaval_digest">{?ditaval-digest}</fn:string>
              <fn:map key="keeps">
                <xsl:for-each select="?keeps">
                  <fn:map key="{?attribute}">
                    <xsl:for-each select="?values?*">
                      <xsl:sequence select="v:strings(?value, ?names)"/>
                    </xsl:for-each>
                  </fn:map>
                </xsl:for-each>
              </fn:map>
            </fn:map>
          </xsl:for-each>
        </fn:array>
        <xsl:sequence select="v:string-or-null('scheme_digest', $header?scheme-digest)"/>
        <fn:string key="exporter_version">{$header?exporter-version}</fn:string>
        <fn:string key="stylesheet_digest">{$header?stylesheet-digest}</fn:string>
        <xsl:sequence select="v:string-or-null('source_commit', $header?source-commit)"/>
        <fn:map key="counts">
          <fn:number key="chunks">{$header?chunks}</fn:number>
          <fn:number key="kept_by_no_profile">{$header?kept-by-no-profile}</fn:number>
          <fn:map key="per_profile">
            <xsl:for-each select="$header?per-profile">
              <fn:number key="{?name}">{?count}</fn:number>
            </xsl:for-each>
          </fn:map>
          <fn:map key="not_chunked">
            <xsl:for-each select="sort(map:keys(($header?not-chunked, map{})[1]))">
              <fn:number key="{.}">{$header?not-chunked(.)}</fn:number>
            </xsl:for-each>
          </fn:map>
        </fn:map>
        <fn:array key="owned_values">
          <xsl:for-each select="$header?owned-values">
            <fn:map>
              <fn:string key="value">{?value}</fn:string>
              <xsl:sequence select="v:strings('profiles', ?profiles)"/>
              <fn:string key="rule">{?rule}</fn:string>
              <xsl:sequence select="v:string-or-null('key', ?key)"/>
              <xsl:sequence select="v:source-map('source', ?source)"/>
            </fn:map>
          </xsl:for-each>
        </fn:array>
        <fn:array key="warnings">
          <xsl:for-each select="$header?warnings">
            <fn:map>
              <fn:string key="path">{?path}</fn:string>
              <fn:number key="line">{?line}</fn:number>
              <fn:string key="feature">{?feature}</fn:string>
              <fn:string key="message">{?message}</fn:string>
            </fn:map>
          </xsl:for-each>
        </fn:array>
      </fn:map>
    </xsl:variable>
    <xsl:sequence select="v:json($tree)"/>
  </xsl:function>

  <!-- $line: a merged line (see merge.xsl); $profiles: all profile names in order. -->
  <xsl:function name="v:chunk-line" as="xs:string">
    <xsl:param name="line" as="map(*)"/>
    <xsl:param name="profiles" as="xs:string+"/>
    <xsl:param name="digest" as="xs:string"/>
    <xsl:variable name="tree" as="element(fn:map)">
      <fn:map>
        <fn:string key="kind">chunk</fn:string>
        <fn:string key="id">{$line?id}</fn:string>
        <fn:string key="text">{$line?text}</fn:string>
        <fn:string key="title">{$line?title}</fn:string>
        <xsl:sequence select="v:strings('breadcrumbs', $line?breadcrumbs)"/>
        <fn:string key="type">{$line?type}</fn:string>
        <fn:string key="topic_id">{$line?topic-id}</fn:string>
        <xsl:sequence select="v:source-map('source', $line?source)"/>
        <fn:map key="scope">
          <xsl:for-each select="$profiles">
            <fn:boolean key="{.}">{. = $line?in}</fn:boolean>
          </xsl:for-each>
        </fn:map>
        <fn:string key="scope_origin">{$line?origin}</fn:string>
        <xsl:sequence select="v:strings('code', $line?code)"/>
        <fn:string key="digest">{$digest}</fn:string>
      </fn:map>
    </xsl:variable>
    <xsl:sequence select="v:json($tree)"/>
  </xsl:function>

  <xsl:function name="v:source-map" as="element(fn:map)">
    <xsl:param name="key" as="xs:string"/>
    <xsl:param name="source" as="map(*)"/>
    <fn:map key="{$key}">
      <fn:string key="path">{$source?path}</fn:string>
      <fn:number key="line">{$source?line}</fn:number>
      <fn:string key="xpath">{$source?xpath}</fn:string>
    </fn:map>
  </xsl:function>

  <xsl:function name="v:strings" as="element(fn:array)">
    <xsl:param name="key" as="xs:string"/>
    <xsl:param name="values" as="xs:string*"/>
    <fn:array key="{$key}">
      <xsl:for-each select="$values">
        <fn:string>{.}</fn:string>
      </xsl:for-each>
    </fn:array>
  </xsl:function>

  <!-- null for an absent or empty value. -->
  <xsl:function name="v:string-or-null" as="element()">
    <xsl:param name="key" as="xs:string"/>
    <xsl:param name="value" as="xs:string?"/>
    <xsl:choose>
      <xsl:when test="normalize-space($value)">
        <fn:string key="{$key}">{$value}</fn:string>
      </xsl:when>
      <xsl:otherwise>
        <fn:null key="{$key}"/>
      </xsl:otherwise>
    </xsl:choose>
  </xsl:function>

</xsl:stylesheet>
