<?xml version="1.0" encoding="UTF-8"?>
<!--
  Profiles to scope: the chunk records of every profile's build merged by chunk identity.

  - scope[P] is true iff P's build has the chunk with that text.
  - When the text differs by profile (element profiling inside the chunk, keyrefs to profiled key
    definitions), each distinct text is its own line, a variant, with id suffix "~p1+p2" (the
    profiles that share the text, in profile order). Variants are ordered by their first profile.
  - scope_origin: "shared" when every profile has the line's text; "cascaded" when the line's
    profiles are exactly the profiles whose build has the chunk's topic (the innermost topic, by
    file path and id: decided by map branches, topicrefs or topic elements); "element" otherwise.
  - Lines are sorted by source path, then line and column of the chunk element's start tag in its
    source file (document order), then id, then variant.

  A line is a map: id, base-id, variant, text, title, breadcrumbs, type, topic-id, source, in
  (the profiles in scope), origin, code. Its breadcrumbs start with the filtered map title of each
  of its profiles' builds (distinct titles in profile order, joined by ' / '), then the first
  build's topic titles and the chunk's own title.
-->
<xsl:stylesheet version="3.0"
  xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
  xmlns:xs="http://www.w3.org/2001/XMLSchema"
  xmlns:map="http://www.w3.org/2005/xpath-functions/map"
  xmlns:v="urn:valid:xsl"
  exclude-result-prefixes="#all"
  default-collation="http://www.w3.org/2005/xpath-functions/collation/codepoint">

  <xsl:function name="v:merge" as="map(*)*">
    <xsl:param name="records" as="map(*)*"/>
    <xsl:param name="profiles" as="xs:string+"/>
    <xsl:param name="topic-scope" as="map(*)"/>
    <xsl:param name="src-base" as="xs:string"/>
    <xsl:variable name="lines" as="map(*)*">
      <xsl:for-each-group select="$records" group-by="?id">
        <xsl:variable name="id" select="current-grouping-key()"/>
        <!-- One record per profile (a chunk conref'd twice into one topic counts once). -->
        <xsl:variable name="per-profile" as="map(*)+">
          <xsl:for-each-group select="current-group()" group-by="?profile">
            <xsl:sequence select="current-group()[1]"/>
          </xsl:for-each-group>
        </xsl:variable>
        <xsl:variable name="first" select="$per-profile[1]"/>
        <xsl:variable name="source" select="v:source($first?node, $src-base)"/>
        <xsl:variable name="topic-profiles" as="xs:string*" select="$topic-scope($first?topic-key)"/>
        <xsl:variable name="variants" as="map(*)+">
          <xsl:for-each-group select="$per-profile" group-by="?text">
            <xsl:sequence select="map{'record': current-group()[1], 'in': current-group() ! ?profile,
              'map-titles': distinct-values(current-group() ! ?map-title[. ne ''])}"/>
          </xsl:for-each-group>
        </xsl:variable>
        <xsl:for-each select="$variants">
          <xsl:variable name="in" as="xs:string+" select="?in"/>
          <xsl:variable name="record" select="?record"/>
          <xsl:sequence select="map{
            'id': if (count($variants) gt 1) then $id || '~' || string-join($in, '+') else $id,
            'base-id': $id,
            'variant': position(),
            'text': $record?text,
            'title': $record?title,
            'breadcrumbs': (string-join(?map-titles, ' / ')[. ne ''], $record?breadcrumbs),
            'type': $record?type,
            'topic-id': $record?topic-id,
            'source': $source,
            'in': $in,
            'origin':
              if (count($in) eq count($profiles)) then 'shared'
              else if (deep-equal($in, $topic-profiles)) then 'cascaded'
              else 'element',
            'code': $record?code}"/>
        </xsl:for-each>
      </xsl:for-each-group>
    </xsl:variable>
    <xsl:perform-sort select="$lines">
      <xsl:sort select="?source?path"/>
      <xsl:sort select="?source?line"/>
      <xsl:sort select="?source?col"/>
      <xsl:sort select="?base-id"/>
      <xsl:sort select="?variant"/>
    </xsl:perform-sort>
  </xsl:function>

  <!-- topic key -> the profiles (in profile order) whose build has that topic. -->
  <xsl:function name="v:topic-scope" as="map(*)">
    <xsl:param name="jobs" as="map(*)*"/>
    <xsl:param name="src-base" as="xs:string"/>
    <xsl:sequence select="map:merge(
      for $job in $jobs,
          $key in distinct-values($job?topics ! v:topic-key(., map{'src-base': $src-base, 'job-dir': $job?dir, 'renamed': $job?renamed}))
      return map{$key: $job?profile},
      map{'duplicates': 'combine'})"/>
  </xsl:function>

  <!-- Chunk identities the unfiltered build has and no profile's build has. -->
  <xsl:function name="v:kept-by-no-profile" as="xs:integer">
    <xsl:param name="unfiltered-records" as="map(*)*"/>
    <xsl:param name="records" as="map(*)*"/>
    <xsl:variable name="kept" as="map(*)" select="map:merge(distinct-values($records ! ?id) ! map{.: true()})"/>
    <xsl:sequence select="count(distinct-values($unfiltered-records ! ?id)[not(map:contains($kept, .))])"/>
  </xsl:function>

</xsl:stylesheet>
