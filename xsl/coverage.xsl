<?xml version="1.0" encoding="UTF-8"?>
<!--
  What was not chunked: the block elements of kept topics whose content is in no chunk, counted by
  element name for the header (counts.not_chunked), so nothing is dropped silently.

  A block element (paragraphs, lists, notes, figures, tables, sections, pre, ...; plus what the text
  leaves out on purpose: draft-comment, required-cleanup, foreign and its specializations such as
  svg-container, unknown, object, and images placed as blocks) is covered when it lies inside a chunk
  that was written (its nearest chunk element, else the topic's body chunk, which also holds the
  shortdesc or abstract, has text) and is neither left out of text itself nor inside something
  left out.
  Metadata and navigation (prolog, titlealts, related-links) and DITA-OT's flag markup are not
  content and are not counted. Only the outermost uncovered block counts (a dropped list counts
  once, not once per item).

  Counted once per element (by topic, @xtrf and @xtrc): the element is counted when some profile's
  build keeps it and the build with the most content (the unfiltered one, when the run has it;
  else every profile's) does not chunk it.
-->
<xsl:stylesheet version="3.0"
  xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
  xmlns:xs="http://www.w3.org/2001/XMLSchema"
  xmlns:map="http://www.w3.org/2005/xpath-functions/map"
  xmlns:v="urn:valid:xsl"
  exclude-result-prefixes="#all">

  <xsl:variable name="v:left-out-blocks" as="xs:string+" select="
    ' topic/draft-comment ', ' topic/required-cleanup ', ' topic/foreign ', ' topic/unknown ', ' topic/object '"/>
  <xsl:variable name="v:not-content" as="xs:string+" select="
    ' topic/prolog ', ' topic/titlealts ', ' topic/related-links ', ' ditaot-d/ditaval-startprop ',
    ' ditaot-d/ditaval-endprop '"/>
  <!-- Block parts that live inside a counted block, or that a chunk carries as its title. -->
  <xsl:variable name="v:block-parts" as="xs:string+" select="
    ' topic/title ', ' topic/li ', ' topic/sli ', ' topic/dlentry ', ' topic/desc '"/>

  <xsl:function name="v:counted-block" as="xs:boolean">
    <xsl:param name="e" as="element()"/>
    <xsl:sequence select="
      (v:is-block($e) and not(v:is-any($e, $v:block-parts)))
      or v:is-any($e, $v:left-out-blocks)
      or (v:is($e, ' topic/image ') and $e/@placement eq 'break')"/>
  </xsl:function>

  <xsl:function name="v:left-out" as="xs:boolean">
    <xsl:param name="e" as="element()"/>
    <xsl:sequence select="v:skipped($e)"/>
  </xsl:function>

  <!-- name -> count of the elements not chunked; $records are the records of the builds in $jobs. -->
  <xsl:function name="v:not-chunked" as="map(xs:string, xs:integer)">
    <xsl:param name="unfiltered" as="map(*)?"/>
    <xsl:param name="unfiltered-records" as="map(*)*"/>
    <xsl:param name="jobs" as="map(*)+"/>
    <xsl:param name="records" as="map(*)*"/>
    <xsl:param name="src-base" as="xs:string"/>
    <xsl:variable name="dropped" as="map(*)*" select="
      if (exists($unfiltered))
      then v:kept-somewhere(v:dropped($unfiltered, $unfiltered-records, $src-base), $jobs, $src-base)
      else for $job in $jobs return v:dropped($job, $records[?profile eq $job?profile], $src-base)"/>
    <xsl:variable name="distinct" as="map(*)*">
      <xsl:for-each-group select="$dropped" group-by="?id">
        <xsl:sequence select="current-group()[1]"/>
      </xsl:for-each-group>
    </xsl:variable>
    <xsl:sequence select="map:merge(
      for $name in distinct-values($distinct ! ?name) return map{$name: count($distinct[?name eq $name])})"/>
  </xsl:function>

  <!-- The outermost uncovered block elements of one build: maps {id, name, element, topic-key}. -->
  <xsl:function name="v:dropped" as="map(*)*">
    <xsl:param name="job" as="map(*)"/>
    <xsl:param name="records" as="map(*)*"/>
    <xsl:param name="src-base" as="xs:string"/>
    <xsl:variable name="context" select="map{'src-base': $src-base, 'job-dir': $job?dir, 'renamed': $job?renamed}"/>
    <xsl:variable name="written" as="map(xs:string, xs:boolean)" select="map:merge(
      $records ! (if (?type eq 'body')
                  then (?node, ?node/../*[v:is(., ' topic/shortdesc ') or v:is(., ' topic/abstract ')])
                  else ?node) ! map{generate-id(.): true()},
      map{'duplicates': 'use-first'})"/>
    <xsl:for-each select="$job?topics">
      <xsl:variable name="topic" select="."/>
      <xsl:variable name="key" select="v:topic-key(., $context)"/>
      <xsl:for-each select=".//*[v:counted-block(.)]
                               [ancestor::*[v:is(., ' topic/topic ')][1] is $topic]
                               [not(ancestor::*[v:is-any(., $v:not-content)])]
                               [not(v:covered(., $written))]">
        <xsl:variable name="e" select="."/>
        <xsl:if test="not(ancestor::*[v:counted-block(.)][. >> $topic][not(v:covered(., $written))])">
          <xsl:sequence select="map{
            'id': $key || '|' || v:element-key($e),
            'name': local-name($e),
            'element': $e,
            'topic-key': $key}"/>
        </xsl:if>
      </xsl:for-each>
    </xsl:for-each>
  </xsl:function>

  <xsl:function name="v:covered" as="xs:boolean">
    <xsl:param name="e" as="element()"/>
    <xsl:param name="written" as="map(xs:string, xs:boolean)"/>
    <!-- The chunk that would hold it: the nearest chunk element, else the body or lead. -->
    <xsl:variable name="unit" as="element()?" select="$e/ancestor-or-self::*[
      v:chunk-type(.) ne '' or v:is(., ' topic/body ') or v:is(., ' topic/shortdesc ') or v:is(., ' topic/abstract ')][1]"/>
    <xsl:sequence select="
      exists($unit) and map:contains($written, generate-id($unit))
      and not($e/ancestor-or-self::*[v:left-out(.)])
      and not(v:is($e, ' topic/image ') or v:is($e, ' topic/object '))"/>
  </xsl:function>

  <xsl:function name="v:element-key" as="xs:string">
    <xsl:param name="e" as="element()"/>
    <xsl:sequence select="if ($e/@xtrc) then string($e/@xtrf) || '|' || string($e/@xtrc) else path($e)"/>
  </xsl:function>

  <!-- The candidates that some profile's build keeps (same topic, same @xtrf/@xtrc). Only the
       topics that hold a candidate are searched, once per build. -->
  <xsl:function name="v:kept-somewhere" as="map(*)*">
    <xsl:param name="candidates" as="map(*)*"/>
    <xsl:param name="jobs" as="map(*)+"/>
    <xsl:param name="src-base" as="xs:string"/>
    <xsl:variable name="wanted" as="map(*)" select="map:merge($candidates ! map{?id: true()}, map{'duplicates': 'use-first'})"/>
    <xsl:variable name="topics" as="map(*)" select="map:merge($candidates ! map{?topic-key: true()}, map{'duplicates': 'use-first'})"/>
    <xsl:variable name="kept" as="map(*)" select="map:merge(
      for $job in $jobs,
          $topic in $job?topics,
          $key in v:topic-key($topic, map{'src-base': $src-base, 'job-dir': $job?dir, 'renamed': $job?renamed})[map:contains($topics, .)],
          $e in $topic//*[@xtrc]
      return ($key || '|' || v:element-key($e))[map:contains($wanted, .)] ! map{.: true()},
      map{'duplicates': 'use-first'})"/>
    <xsl:sequence select="$candidates[map:contains($kept, ?id)]"/>
  </xsl:function>

</xsl:stylesheet>
