<?xml version="1.0" encoding="UTF-8"?>
<!--
  Reading one DITA-OT preprocess2 job directory: .job.xml, the (already filtered) root map, and the
  topics the build keeps.

  A topic file is kept when a topicref of the filtered temp map references it (fragment ignored)
  with processing-role other than resource-only (the nearest @processing-role on the topicref or
  its ancestors; a keydef without one is resource-only), scope neither external nor peer (nearest
  @scope), and format dita (its @format, or a .dita/.xml href when it has none). Relationship-table
  topicrefs count: DITA-OT processes those topics too. A kept file without a topic root (DITA-OT
  writes no element when the root topic is filtered out) contributes nothing.

  A job is a map: profile, uri, dir, map (the root map element), files (the kept topic documents,
  in order of their first reference), topics (all topic elements of those files, nested ones too).
-->
<xsl:stylesheet version="3.0"
  xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
  xmlns:xs="http://www.w3.org/2001/XMLSchema"
  xmlns:map="http://www.w3.org/2005/xpath-functions/map"
  xmlns:v="urn:valid:xsl"
  exclude-result-prefixes="#all"
  expand-text="yes">

  <xsl:function name="v:load-job" as="map(*)">
    <xsl:param name="job-uri" as="xs:string"/>
    <xsl:param name="profile" as="xs:string"/>
    <xsl:if test="not(doc-available($job-uri))">
      <xsl:message terminate="yes" error-code="v:job">cannot read job file {v:file-path($job-uri)} (profile {$profile}): missing or not well-formed XML</xsl:message>
    </xsl:if>
    <xsl:variable name="job" select="doc($job-uri)"/>
    <xsl:variable name="input" select="$job/job/files/file[@input eq 'true'][1]"/>
    <xsl:if test="empty($input)">
      <xsl:message terminate="yes" error-code="v:job">job file {v:file-path($job-uri)} (profile {$profile}) names no root map: no files/file[@input='true']</xsl:message>
    </xsl:if>
    <xsl:variable name="map-uri" select="string(resolve-uri($input/@uri, $job-uri))"/>
    <xsl:if test="not(doc-available($map-uri))">
      <xsl:message terminate="yes" error-code="v:job">cannot read root map {v:file-path($map-uri)} of job {v:file-path($job-uri)} (profile {$profile})</xsl:message>
    </xsl:if>
    <xsl:variable name="map" select="doc($map-uri)/*"/>
    <xsl:variable name="dita-files" as="map(*)" select="map:merge(
      $job/job/files/file[@format = 'dita'][@uri] ! map{v:uri-key(string(resolve-uri(iri-to-uri(@uri), $job-uri))): .},
      map{'duplicates': 'use-first'})"/>
    <xsl:variable name="copies-of" as="map(*)" select="map:merge(
      $job/job/files/file[@format = 'dita'][@uri][@src and @result][v:normalize-uri(@result) ne v:normalize-uri(@src)]
        ! map{v:normalize-uri(@src): .},
      map{'duplicates': 'combine'})"/>
    <xsl:variable name="file-uris" as="xs:string*">
      <xsl:for-each-group select="$map//*[@href][v:is(., ' map/topicref ')][v:is-kept-ref(.)] ! v:ref-uris(., $dita-files, $copies-of, $job-uri)"
                          group-by="v:uri-key(.)">
        <xsl:sequence select="current-group()[1]"/>
      </xsl:for-each-group>
    </xsl:variable>
    <!-- A referenced temp file the build did not write contributes nothing, as in DITA-OT's own
         output: DITA-OT lists a source it could not load (DOTX008E) without @format, and a source
         that is missing from a checkout (a topic the doc set's own build generates) may be listed
         with @format all the same; DITA-OT reports both and builds the rest. A file that exists
         and is not well-formed still stops the export (v:load-topic-file). -->
    <xsl:variable name="files" as="document-node()*"
      select="$file-uris[doc-available(.) or unparsed-text-available(.)]
              ! v:load-topic-file(., $job-uri, $profile)"/>
    <xsl:sequence select="map{
      'profile': $profile,
      'uri': $job-uri,
      'dir': string(resolve-uri('.', $job-uri)),
      'map': $map,
      'files': $files,
      'topics': $files//*[v:is(., ' topic/topic ')],
      'renamed': v:renamed($job, $job-uri)}"/>
  </xsl:function>

  <!-- The temp files a kept topicref brings into the build: its @href's file, and for a @copy-to the
       copy. DITA-OT 4.2.4's preprocess2 leaves @href on the source and writes the copy as a file of
       its own, which its HTML5 build publishes; @copy-to then holds the copy's temp name under the
       hashed temp-file scheme, which need not be the name the copy was written under. So the copy is
       the written file named by @copy-to, else the written copies (@result not @src) of the
       topicref's source: a copy-to topicref that the profile filters out leaves no written file. -->
  <xsl:function name="v:ref-uris" as="xs:string*">
    <xsl:param name="ref" as="element()"/>
    <xsl:param name="dita-files" as="map(*)"/>
    <xsl:param name="copies-of" as="map(*)"/>
    <xsl:param name="job-uri" as="xs:string"/>
    <xsl:variable name="href" select="string(resolve-uri(substring-before($ref/@href || '#', '#'), base-uri($ref)))"/>
    <xsl:sequence select="$href"/>
    <xsl:if test="normalize-space($ref/@copy-to)">
      <xsl:variable name="named" select="$dita-files(v:uri-key(string(resolve-uri(substring-before($ref/@copy-to || '#', '#'), base-uri($ref)))))"/>
      <xsl:variable name="source" select="$dita-files(v:uri-key($href))/@src ! v:normalize-uri(.)"/>
      <xsl:variable name="copies" as="element()*" select="
        if (exists($named)) then $named else $source ! $copies-of(.)"/>
      <xsl:sequence select="$copies ! string(resolve-uri(iri-to-uri(@uri), $job-uri))"/>
    </xsl:if>
  </xsl:function>

  <!-- Copies of a topic under another name (branch filtering's renames, copy-to, one copy per key
       scope) are listed with their source's @src and their own @result, as DITA-OT's job lists
       them: temp file URI key -> @result, for every file whose @result is not its @src. -->
  <xsl:function name="v:renamed" as="map(*)">
    <xsl:param name="job" as="document-node()"/>
    <xsl:param name="job-uri" as="xs:string"/>
    <xsl:sequence select="map:merge(
      $job/job/files/file[@uri and @src and @result][v:normalize-uri(@result) ne v:normalize-uri(@src)]
        ! map{v:uri-key(string(resolve-uri(iri-to-uri(@uri), $job-uri))): string(@result)},
      map{'duplicates': 'use-first'})"/>
  </xsl:function>

  <!-- A URI compared as a key: file: spelling normalized, percent-decoded. -->
  <xsl:function name="v:uri-key" as="xs:string">
    <xsl:param name="uri" as="xs:string"/>
    <xsl:sequence select="v:percent-decode(v:normalize-uri($uri))"/>
  </xsl:function>

  <xsl:function name="v:is-kept-ref" as="xs:boolean">
    <xsl:param name="ref" as="element()"/>
    <xsl:variable name="role" select="
      if ($ref/@processing-role) then string($ref/@processing-role)
      else if (v:is($ref, ' mapgroup-d/keydef ')) then 'resource-only'
      else string(($ref/ancestor::*[@processing-role][1]/@processing-role, 'normal')[1])"/>
    <xsl:variable name="scope" select="string(($ref/ancestor-or-self::*[@scope][1]/@scope, 'local')[1])"/>
    <xsl:variable name="href" select="substring-before($ref/@href || '#', '#')"/>
    <xsl:variable name="format" select="
      if ($ref/@format) then lower-case($ref/@format)
      else if (matches($href, '\.(dita|xml)$', 'i')) then 'dita'
      else ''"/>
    <xsl:sequence select="$href ne '' and $role ne 'resource-only' and not($scope = ('external', 'peer')) and $format eq 'dita'"/>
  </xsl:function>

  <!-- The document of a referenced temp file, or () when it has no topic root. -->
  <xsl:function name="v:load-topic-file" as="document-node()?">
    <xsl:param name="uri" as="xs:string"/>
    <xsl:param name="job-uri" as="xs:string"/>
    <xsl:param name="profile" as="xs:string"/>
    <xsl:choose>
      <xsl:when test="doc-available($uri)">
        <xsl:sequence select="doc($uri)[*[v:is(., ' topic/topic ')] or */*[v:is(., ' topic/topic ')]]"/>
      </xsl:when>
      <!-- A filtered-out root leaves a file with no element: not a topic, not an error. -->
      <xsl:when test="unparsed-text-available($uri)
                      and normalize-space(replace(unparsed-text($uri), '&lt;\?[^?]*\?&gt;|&lt;!--([^-]|-[^-])*--&gt;', '')) eq ''"/>
      <xsl:otherwise>
        <xsl:message terminate="yes" error-code="v:job">cannot read temp file {v:file-path($uri)} referenced by the root map of job {v:file-path($job-uri)} (profile {$profile}): missing or not well-formed XML</xsl:message>
      </xsl:otherwise>
    </xsl:choose>
  </xsl:function>

  <!-- A file: URI as a path for messages. -->
  <xsl:function name="v:file-path" as="xs:string">
    <xsl:param name="uri" as="xs:string"/>
    <xsl:sequence select="v:percent-decode(replace(v:normalize-uri($uri), '^file:', ''))"/>
  </xsl:function>

</xsl:stylesheet>
