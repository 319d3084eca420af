<?xml version="1.0" encoding="UTF-8"?>
<!--
  What a chunk is, and the chunks of one topic in one profile's build.

  Chunk elements, anywhere in a topic body or abstract (outside skipped content such as draft comments):
    section  ' topic/section ' and its specializations (prereq, context, result, postreq,
             tasktroubleshooting, steps-informal, refsyn, ...)
    example  ' topic/example '
    table    ' topic/table ', ' topic/simpletable ' (properties, choicetable, ...)
    steps    ' task/steps ', ' task/steps-unordered '
  plus one "body" chunk per topic: the shortdesc (or abstract) and the body content that is in
  no other chunk. A chunk whose text is empty is not a chunk. Nested topics give their own chunks.

  A chunk record (one per chunk and profile) is a map:
    id, topic-key (path#topic-id), topic-id, profile, type, title, map-title (the profile's filtered map
    title), breadcrumbs (enclosing topic titles, then the chunk's own title), text, code, node
  where node is the chunk element (the body, or the shortdesc when there is no body).
-->
<xsl:stylesheet version="3.0"
  xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
  xmlns:xs="http://www.w3.org/2001/XMLSchema"
  xmlns:map="http://www.w3.org/2005/xpath-functions/map"
  xmlns:v="urn:valid:xsl"
  exclude-result-prefixes="#all">

  <!-- Extension point: a template in mode v:chunk-type returns the chunk type of the elements it
       matches (one of the types below, or '' for "not a chunk"), instead of the rules below.
       A team overrides chunking of its own specialization from a stylesheet that imports this one
       (the DITA-OT plugin's org.valid.index.xsl extension point), without forking. -->
  <xsl:mode name="v:chunk-type" on-no-match="deep-skip"/>

  <xsl:function name="v:chunk-type" as="xs:string">
    <xsl:param name="e" as="node()"/>
    <xsl:variable name="class" select="string($e/@class)"/>
    <xsl:variable name="custom" as="xs:string?">
      <xsl:apply-templates select="$e[$class ne '']" mode="v:chunk-type"/>
    </xsl:variable>
    <xsl:variable name="type" select="
      if ($class eq '') then ''
      else if (contains($class, ' topic/section ')) then 'section'
      else if (contains($class, ' topic/example ')) then 'example'
      else if (contains($class, ' topic/table ') or contains($class, ' topic/simpletable ')) then 'table'
      else if (contains($class, ' task/steps ') or contains($class, ' task/steps-unordered ')) then 'steps'
      else v:unit-type($class)"/>
    <!-- Parts of a larger unit (topic-types.xsl: a glossAlt, a cause or remedy) are no chunks. -->
    <xsl:sequence select="
      if (exists($custom)) then $custom
      else if ($type ne '' and $e instance of element() and v:in-unit($e)) then '' else $type"/>
  </xsl:function>

  <!-- The chunk records of one topic element (not of its nested topics).
       $context: map{'profile', 'src-base', 'job-dir', 'map-title', 'renamed'}. -->
  <xsl:function name="v:topic-chunks" as="map(*)*">
    <xsl:param name="topic" as="element()"/>
    <xsl:param name="context" as="map(*)"/>
    <xsl:variable name="src-base" select="$context?src-base"/>
    <xsl:variable name="topic-key" select="v:topic-key($topic, $context)"/>
    <xsl:variable name="topic-titles" as="xs:string*" select="
      ($topic/ancestor-or-self::*[v:is(., ' topic/topic ')] ! v:title-text(*[v:is(., ' topic/title ')][1]))[. ne '']"/>
    <xsl:variable name="crumbs" as="xs:string*" select="($context?map-title, $topic-titles)[. ne '']"/>
    <xsl:variable name="topic-title" select="string(($topic-titles[last()], '')[1])"/>
    <xsl:variable name="lead" as="element()*" select="$topic/*[v:is(., ' topic/shortdesc ') or v:is(., ' topic/abstract ')]"/>
    <xsl:variable name="body" as="element()?" select="$topic/*[v:is(., ' topic/body ')][1]"/>

    <xsl:variable name="parts" as="map(*)*">
      <xsl:if test="exists(($body, $lead))">
        <xsl:sequence select="map{
          'node': ($body, $lead)[1], 'local': 'body', 'type': 'body', 'title': $topic-title,
          'blocks': (v:topic-lead($topic), v:flow(($lead, $body/node()))),
          'code-from': ($lead, $body/*)}"/>
      </xsl:if>
      <xsl:for-each select="($lead, $body)//*[v:chunk-type(.) ne ''][not(ancestor::*[v:skipped(.)])]">
        <xsl:variable name="type" select="v:chunk-type(.)"/>
        <xsl:variable name="content" as="element()*" select="*[not(v:is(., ' topic/title '))]"/>
        <xsl:sequence select="map{
          'node': ., 'local': v:local-id(., $topic, $src-base), 'type': $type,
          'title': (v:own-title(.), v:unit-title(.), $topic-title)[. ne ''][1],
          'blocks':
            if ($type eq 'table') then v:table-blocks(.)
            else if ($type eq 'steps') then v:list(.)
            else v:flow(node()[not(. instance of element() and v:is(., ' topic/title '))]),
          'code-from': $content}"/>
      </xsl:for-each>
    </xsl:variable>

    <xsl:for-each select="$parts">
      <xsl:variable name="text" select="v:render(?blocks)"/>
      <xsl:if test="$text ne ''">
        <xsl:sequence select="map{
          'id': $topic-key || '/' || ?local,
          'topic-key': $topic-key,
          'topic-id': string($topic/@id),
          'profile': $context?profile,
          'type': ?type,
          'title': string(?title),
          'map-title': string($context?map-title),
          'breadcrumbs': ($topic-titles, ?title[. ne ''][. ne $crumbs[last()]]),
          'text': $text,
          'code': v:code(?code-from),
          'node': ?node}"/>
      </xsl:if>
    </xsl:for-each>
  </xsl:function>

  <!-- "<topic file path>#<topic id>": the topic file's source path relative to the run's src-base
       (the temp path relative to the job directory if the topic has no @xtrf); for a renamed copy
       of a topic (context 'renamed', see v:renamed), the copy's own @result path. -->
  <xsl:function name="v:topic-key" as="xs:string">
    <xsl:param name="topic" as="element()"/>
    <xsl:param name="context" as="map(*)"/>
    <xsl:variable name="result" as="xs:string?" select="
      map:get(($context?renamed, map{})[1], v:uri-key(string(document-uri(root($topic)))))"/>
    <xsl:variable name="path" select="
      if (exists($result)) then v:relative-path($result, $context?src-base)
      else if ($topic/@xtrf) then v:relative-path($topic/@xtrf, $context?src-base)
      else v:relative-path(string(document-uri(root($topic))), $context?job-dir)"/>
    <xsl:sequence select="$path || '#' || $topic/@id"/>
  </xsl:function>

  <!-- The element's @id, else "<qname>-<count>" from @xtrc; prefixed with "<path>:" when the
       element came from another file than its topic (conref). -->
  <xsl:function name="v:local-id" as="xs:string">
    <xsl:param name="e" as="element()"/>
    <xsl:param name="topic" as="element()"/>
    <xsl:param name="src-base" as="xs:string"/>
    <xsl:variable name="xtrc" as="map(*)?" select="v:xtrc($e)"/>
    <xsl:variable name="own" select="
      if (normalize-space($e/@id)) then string($e/@id)
      else if (exists($xtrc)) then $xtrc?qname || '-' || $xtrc?count
      (: Without @xtrc (not DITA-OT output) the count is taken in the temp file. :)
      else name($e) || '-' || count(($e/preceding::*, $e/ancestor-or-self::*)[node-name() eq node-name($e)])"/>
    <xsl:sequence select="
      if ($e/@xtrf and $topic/@xtrf and v:normalize-uri($e/@xtrf) ne v:normalize-uri($topic/@xtrf))
      then v:relative-path($e/@xtrf, $src-base) || ':' || $own
      else $own"/>
  </xsl:function>

  <!-- A table without a title takes its figure's title, then its section's. -->
  <xsl:function name="v:own-title" as="xs:string">
    <xsl:param name="e" as="element()"/>
    <xsl:variable name="own" select="v:title-text($e/*[v:is(., ' topic/title ')][1])"/>
    <xsl:sequence select="
      if ($own ne '' or v:chunk-type($e) ne 'table') then $own
      else (v:title-text($e/ancestor::*[v:is(., ' topic/fig ')][1]/*[v:is(., ' topic/title ')][1]),
            v:title-text($e/ancestor::*[v:chunk-type(.) = ('section', 'example')][1]/*[v:is(., ' topic/title ')][1]))[. ne ''][1] => string()"/>
  </xsl:function>

</xsl:stylesheet>
