<?xml version="1.0" encoding="UTF-8"?>
<!--
  Rendering DITA content as readable plain text, and collecting the code it contains.

  Content is first turned into a small block tree (namespace urn:valid:xsl:blocks):
    t:p     a paragraph: inline text, whitespace normalized
    t:pre   verbatim text (codeblock, pre, screen, msgblock, lines): never re-indented
    t:list  of t:item @mark ("1. ", "- ", or "" for a step section), each holding blocks
    t:rows  of t:row: table rows, cells joined with " | "
  and then rendered: blocks separated by a blank line, list items and their blocks by a line
  break, item continuation lines indented under the marker. Verbatim text is kept exactly
  (minus blank lines at its start and whitespace at its end) and is not indented even inside a
  list, so every command in `code` is a substring of the chunk text.

  Left out of text: index entries, draft comments, required-cleanup, data, foreign and unknown
  content (this includes DITA-OT's ditaval-startprop/endprop flag markup), images and objects,
  processing instructions and comments. Link text that DITA-OT generated (after
  <?ditaot gentext?>, e.g. an empty xref filled with its target's title) is kept: it is what the
  published page shows, and without it a sentence reads "see ." A link's desc is left out: it is
  hover text, not shown in the sentence (DITA-OT fills an xref's desc with its target's shortdesc
  after <?ditaot genshortdesc?>). A chunk element nested in another (a table inside a section,
  a choicetable inside steps) is its own chunk and is left out of the outer chunk's text.

  All matching is on @class tokens, so specializations render like their base elements.
-->
<xsl:stylesheet version="3.0"
  xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
  xmlns:xs="http://www.w3.org/2001/XMLSchema"
  xmlns:v="urn:valid:xsl"
  xmlns:t="urn:valid:xsl:blocks"
  exclude-result-prefixes="#all"
  expand-text="yes">

  <!-- Elements whose content is never part of the text. -->
  <xsl:variable name="v:skipped-classes" as="xs:string+" select="
    ' topic/indexterm ', ' topic/index-base ', ' topic/indextermref ', ' topic/draft-comment ',
    ' topic/required-cleanup ', ' topic/data ', ' topic/data-about ', ' topic/foreign ',
    ' topic/unknown ', ' topic/image ', ' topic/object ', ' topic/titlealts ', ' topic/related-links ',
    ' topic/prolog '"/>

  <!-- Elements that start a new block; everything else flows inline. -->
  <xsl:variable name="v:block-classes" as="xs:string+" select="
    ' topic/p ', ' topic/note ', ' topic/lq ', ' topic/ul ', ' topic/ol ', ' topic/sl ', ' topic/dl ',
    ' topic/li ', ' topic/sli ', ' topic/dlentry ', ' topic/pre ', ' topic/lines ', ' topic/fig ',
    ' topic/figgroup ', ' topic/table ', ' topic/simpletable ', ' topic/section ', ' topic/example ',
    ' topic/div ', ' topic/bodydiv ', ' topic/sectiondiv ', ' topic/itemgroup ', ' topic/title ',
    ' topic/shortdesc ', ' topic/abstract ', ' topic/desc '"/>

  <!-- Verbatim code (block) and code phrases (inline) collected into a chunk's `code`.
       varname is left out on purpose: it names a placeholder the reader replaces. -->
  <xsl:variable name="v:code-block-classes" as="xs:string+" select="' topic/pre '"/>
  <xsl:variable name="v:code-phrase-classes" as="xs:string+" select="
    ' pr-d/codeph ', ' sw-d/userinput ', ' sw-d/cmdname ', ' pr-d/option ', ' pr-d/parmname ',
    ' sw-d/filepath '"/>

  <xsl:function name="v:is" as="xs:boolean">
    <xsl:param name="n" as="node()"/>
    <xsl:param name="class-token" as="xs:string"/>
    <xsl:sequence select="contains($n/@class, $class-token)"/>
  </xsl:function>

  <xsl:function name="v:is-any" as="xs:boolean">
    <xsl:param name="n" as="node()"/>
    <xsl:param name="class-tokens" as="xs:string+"/>
    <xsl:variable name="class" select="string($n/@class)"/>
    <xsl:sequence select="$class ne '' and (some $token in $class-tokens satisfies contains($class, $token))"/>
  </xsl:function>

  <xsl:function name="v:skipped" as="xs:boolean">
    <xsl:param name="n" as="node()"/>
    <xsl:sequence select="v:is-any($n, $v:skipped-classes)
      or (v:is($n, ' topic/desc ') and $n/parent::*[v:is(., ' topic/xref ')])"/>
  </xsl:function>

  <xsl:function name="v:is-block" as="xs:boolean">
    <xsl:param name="n" as="node()"/>
    <xsl:sequence select="$n instance of element() and v:is-any($n, $v:block-classes)"/>
  </xsl:function>

  <!-- ===== Blocks ===== -->

  <!-- Blocks for a mixed sequence of nodes: runs of inline nodes become one paragraph each. -->
  <xsl:function name="v:flow" as="element()*">
    <xsl:param name="nodes" as="node()*"/>
    <xsl:for-each-group select="$nodes" group-adjacent="v:is-block(.)">
      <xsl:choose>
        <xsl:when test="current-grouping-key()">
          <xsl:apply-templates select="current-group()" mode="v:block"/>
        </xsl:when>
        <xsl:otherwise>
          <xsl:variable name="text" select="normalize-space(string-join(current-group() ! v:inline(.)))"/>
          <xsl:if test="$text ne ''">
            <t:p>{$text}</t:p>
          </xsl:if>
        </xsl:otherwise>
      </xsl:choose>
    </xsl:for-each-group>
  </xsl:function>

  <xsl:template match="*" mode="v:block">
    <xsl:sequence select="v:flow(node())"/>
  </xsl:template>

  <!-- Not text, or a chunk of its own. -->
  <xsl:template match="*[v:skipped(.) or v:chunk-type(.) ne '']" mode="v:block" priority="20"/>

  <xsl:template match="*[v:is(., ' topic/pre ') or v:is(., ' topic/lines ')]" mode="v:block" priority="10">
    <t:pre>{v:verbatim(.)}</t:pre>
  </xsl:template>

  <xsl:template match="*[v:is-any(., (' topic/ul ', ' topic/ol ', ' topic/sl '))]" mode="v:block" priority="10">
    <xsl:sequence select="v:list(.)"/>
  </xsl:template>

  <xsl:template match="*[v:is(., ' topic/dl ')]" mode="v:block" priority="10">
    <t:list>
      <xsl:for-each select="*[v:is(., ' topic/dlentry ')]">
        <t:item mark="- ">
          <xsl:variable name="terms" select="string-join(
            (*[v:is(., ' topic/dt ')] ! normalize-space(v:inline(.)))[. ne ''], ' / ')"/>
          <xsl:if test="$terms ne ''">
            <t:p>{$terms}</t:p>
          </xsl:if>
          <xsl:sequence select="*[v:is(., ' topic/dd ')] ! v:flow(node())"/>
        </t:item>
      </xsl:for-each>
    </t:list>
  </xsl:template>

  <xsl:template match="*[v:is(., ' topic/note ')]" mode="v:block" priority="10">
    <xsl:variable name="blocks" select="v:flow(node())"/>
    <xsl:variable name="label" select="v:note-label(.)"/>
    <xsl:choose>
      <xsl:when test="empty($blocks)"/>
      <xsl:when test="$blocks[1][self::t:p]">
        <t:p>{$label}: {$blocks[1]}</t:p>
        <xsl:sequence select="tail($blocks)"/>
      </xsl:when>
      <xsl:otherwise>
        <t:p>{$label}:</t:p>
        <xsl:sequence select="$blocks"/>
      </xsl:otherwise>
    </xsl:choose>
  </xsl:template>

  <xsl:function name="v:note-label" as="xs:string">
    <xsl:param name="note" as="element()"/>
    <xsl:variable name="type" select="
      if ($note/@type eq 'other' and normalize-space($note/@othertype)) then normalize-space($note/@othertype)
      else if (normalize-space($note/@type) and $note/@type ne 'other') then normalize-space($note/@type)
      else 'note'"/>
    <xsl:sequence select="upper-case(substring($type, 1, 1)) || substring($type, 2)"/>
  </xsl:function>

  <!-- ul, ol, sl and their specializations (steps, substeps, choices, steps-unordered). Items of
       an ordered list are numbered; a step section is an unnumbered item. -->
  <xsl:function name="v:list" as="element(t:list)">
    <xsl:param name="list" as="element()"/>
    <xsl:variable name="ordered" select="v:is($list, ' topic/ol ')"/>
    <t:list>
      <xsl:for-each select="$list/*[v:is(., ' topic/li ') or v:is(., ' topic/sli ')]">
        <xsl:variable name="mark" select="
          if (v:is(., ' task/stepsection ')) then ''
          else if ($ordered) then
            count(preceding-sibling::*[v:is(., ' topic/li ')][not(v:is(., ' task/stepsection '))]) + 1 || '. '
          else '- '"/>
        <t:item mark="{$mark}">
          <xsl:sequence select="v:flow(node())"/>
        </t:item>
      </xsl:for-each>
    </t:list>
  </xsl:function>

  <!-- A table or simpletable (and specializations: properties, choicetable): its description,
       then one row per line, header rows first (document order puts them first). -->
  <xsl:function name="v:table-blocks" as="element()*">
    <xsl:param name="table" as="element()"/>
    <xsl:sequence select="$table/*[v:is(., ' topic/desc ')] ! v:flow(node())"/>
    <xsl:variable name="rows" as="element()*" select="
      if (v:is($table, ' topic/table '))
      then $table/*[v:is(., ' topic/tgroup ')]/*[v:is(., ' topic/thead ') or v:is(., ' topic/tbody ')]/*[v:is(., ' topic/row ')]
      else $table/*[v:is(., ' topic/sthead ') or v:is(., ' topic/strow ')]"/>
    <xsl:variable name="lines" as="xs:string*" select="
      for $row in $rows return
        let $cells := $row/*[v:is(., ' topic/entry ') or v:is(., ' topic/stentry ')] ! v:cell-text(.)
        return string-join($cells, ' | ')[some $c in $cells satisfies $c ne '']"/>
    <xsl:if test="exists($lines)">
      <t:rows>
        <xsl:for-each select="$lines">
          <t:row>{.}</t:row>
        </xsl:for-each>
      </t:rows>
    </xsl:if>
  </xsl:function>

  <xsl:function name="v:cell-text" as="xs:string">
    <xsl:param name="cell" as="element()"/>
    <xsl:sequence select="string-join(v:flow($cell/node())/descendant-or-self::*[self::t:p or self::t:pre], ' ')"/>
  </xsl:function>

  <!-- ===== Inline text ===== -->

  <xsl:function name="v:inline" as="xs:string">
    <xsl:param name="n" as="node()"/>
    <xsl:variable name="parts" as="xs:string*">
      <xsl:apply-templates select="$n" mode="v:inline"/>
    </xsl:variable>
    <xsl:sequence select="string-join($parts)"/>
  </xsl:function>

  <xsl:template match="text()" mode="v:inline" as="xs:string">
    <xsl:sequence select="string(.)"/>
  </xsl:template>

  <xsl:template match="processing-instruction() | comment()" mode="v:inline" as="xs:string">
    <xsl:sequence select="''"/>
  </xsl:template>

  <xsl:template match="*" mode="v:inline" as="xs:string">
    <xsl:sequence select="string-join(node() ! v:inline(.))"/>
  </xsl:template>

  <!-- A block met inside inline content (e.g. while flattening a term) keeps a word break. -->
  <xsl:template match="*[v:is-block(.)]" mode="v:inline" as="xs:string" priority="5">
    <xsl:sequence select="' ' || string-join(node() ! v:inline(.)) || ' '"/>
  </xsl:template>

  <xsl:template match="*[v:skipped(.)]" mode="v:inline" as="xs:string" priority="20">
    <xsl:sequence select="''"/>
  </xsl:template>

  <xsl:template match="*[v:is(., ' topic/q ')]" mode="v:inline" as="xs:string" priority="10">
    <xsl:sequence select="'&quot;' || string-join(node() ! v:inline(.)) || '&quot;'"/>
  </xsl:template>

  <xsl:template match="*[v:is(., ' ui-d/menucascade ')]" mode="v:inline" as="xs:string" priority="10">
    <xsl:sequence select="string-join((*[v:is(., ' ui-d/uicontrol ')] ! normalize-space(v:inline(.)))[. ne ''], ' > ')"/>
  </xsl:template>

  <!-- ===== References to glossary entries =====
       DITA-OT's preprocess fills an empty <term> or <abbreviated-form> whose key names a glossentry
       with the entry's title after <?ditaot gentext?> and gives it @href and @type="glossentry";
       its HTML5 rendering (topic.xsl, abbrev-d.xsl) then shows, from the entry as the build
       filtered it, the surface form (else the term) for the first reference to the key in the
       document or any inside a copyright, and the preferred acronym or abbreviation (else the
       term) for later ones. The text follows that rendering, as `valid export` fills such
       references in its own preprocessing (valid.dita.glossterms). A reference with its own text
       keeps it. -->
  <xsl:template mode="v:inline" as="xs:string" priority="10" match="
    *[v:is(., ' topic/term ')][@keyref][@href][@type = 'glossentry']
     [empty(*)][processing-instruction('ditaot')[normalize-space(.) = 'gentext'] or normalize-space(.) = '']">
    <xsl:variable name="entry" select="v:glossentry(.)"/>
    <xsl:sequence select="
      if (empty($entry)) then string-join(node() ! v:inline(.))
      else v:glossary-text($entry,
        empty(preceding::*[v:is(., ' topic/term ')][@keyref = current()/@keyref])
        or exists(ancestor::*[v:is(., ' topic/copyright ')]))"/>
  </xsl:template>

  <!-- The glossentry a reference's @href names in the build: by topic id, else the file's first. -->
  <xsl:function name="v:glossentry" as="element()?">
    <xsl:param name="ref" as="element()"/>
    <xsl:variable name="file" select="substring-before($ref/@href || '#', '#')"/>
    <xsl:variable name="fragment" select="substring-before(substring-after($ref/@href, '#') || '/', '/')"/>
    <xsl:variable name="uri" select="if ($file eq '') then () else resolve-uri($file, base-uri($ref))"/>
    <xsl:variable name="entries" as="element()*" select="
      if (exists($uri) and doc-available($uri)) then doc($uri)//*[v:is(., ' glossentry/glossentry ')] else ()"/>
    <xsl:sequence select="if ($fragment ne '') then $entries[@id = $fragment][1] else $entries[1]"/>
  </xsl:function>

  <xsl:function name="v:glossary-text" as="xs:string">
    <xsl:param name="entry" as="element()"/>
    <xsl:param name="full-form" as="xs:boolean"/>
    <xsl:variable name="surface" select="$entry//*[v:is(., ' glossentry/glossSurfaceForm ')][v:gloss-text(.) ne '']"/>
    <xsl:variable name="short" select="v:short-forms($entry)"/>
    <xsl:sequence select="string-join(
      if ($full-form and exists($surface)) then $surface ! v:gloss-text(.)
      else if ($full-form) then $entry//*[v:is(., ' glossentry/glossterm ')] ! v:gloss-text(.)
      else if (exists($short)) then $short ! v:gloss-text(.)
      else $entry/*[v:is(., ' glossentry/glossterm ')] ! v:gloss-text(.))"/>
  </xsl:function>

  <!-- Acronyms or abbreviations before a 'preferred' status, else before one that is neither
       'prohibited' nor 'obsolete', else those of the first glossAlt that has no status. -->
  <xsl:function name="v:short-forms" as="element()*">
    <xsl:param name="entry" as="element()"/>
    <xsl:variable name="preferred" select="v:short-before-status($entry, ('preferred'), true())"/>
    <xsl:variable name="allowed" select="v:short-before-status($entry, ('', 'prohibited', 'obsolete'), false())"/>
    <xsl:variable name="first-alt" select="($entry//*[v:is(., ' glossentry/glossAlt ')])[1]"/>
    <xsl:sequence select="
      if (exists($preferred)) then $preferred
      else if (exists($allowed)) then $allowed
      else $first-alt/*[v:is-short-form(.)][v:gloss-text(.) ne '']
                       [empty(following-sibling::*[v:is(., ' glossentry/glossStatus ')])]"/>
  </xsl:function>

  <!-- Short forms that precede a sibling glossStatus whose @value is (or, with $in false, is not)
       one of $values; an absent @value is ''. In document order. -->
  <xsl:function name="v:short-before-status" as="element()*">
    <xsl:param name="entry" as="element()"/>
    <xsl:param name="values" as="xs:string*"/>
    <xsl:param name="in" as="xs:boolean"/>
    <xsl:sequence select="
      ($entry/descendant-or-self::*[*[v:is(., ' glossentry/glossStatus ')]
          [(string(@value) = $values) eq $in]]) !
        (*[v:is(., ' glossentry/glossStatus ')][(string(@value) = $values) eq $in][1]
          /preceding-sibling::*[v:is-short-form(.)][v:gloss-text(.) ne ''])
      / ."/>
  </xsl:function>

  <xsl:function name="v:is-short-form" as="xs:boolean">
    <xsl:param name="e" as="element()"/>
    <xsl:sequence select="v:is($e, ' glossentry/glossAcronym ') or v:is($e, ' glossentry/glossAbbreviation ')"/>
  </xsl:function>

  <xsl:function name="v:gloss-text" as="xs:string">
    <xsl:param name="e" as="element()"/>
    <xsl:sequence select="replace(string($e), '^\s+|\s+$', '')"/>
  </xsl:function>

  <!-- Verbatim text of a pre-formatted element: line breaks and spaces kept, blank lines at the
       start and whitespace at the end dropped. -->
  <xsl:function name="v:verbatim" as="xs:string">
    <xsl:param name="e" as="element()"/>
    <xsl:variable name="raw" select="string-join(
      $e//text()[not(ancestor::*[v:skipped(.)])])"/>
    <xsl:sequence select="replace(replace($raw, '^([ \t\r]*\n)+', ''), '\s+$', '')"/>
  </xsl:function>

  <!-- The normalized inline text of a title-like element. -->
  <xsl:function name="v:title-text" as="xs:string">
    <xsl:param name="title" as="element()?"/>
    <xsl:sequence select="if (empty($title)) then '' else normalize-space(v:inline($title))"/>
  </xsl:function>

  <!-- ===== Rendering ===== -->

  <xsl:function name="v:render" as="xs:string">
    <xsl:param name="blocks" as="element()*"/>
    <xsl:sequence select="v:render($blocks, '', '&#10;&#10;')"/>
  </xsl:function>

  <xsl:function name="v:render" as="xs:string">
    <xsl:param name="blocks" as="element()*"/>
    <xsl:param name="indent" as="xs:string"/>
    <xsl:param name="separator" as="xs:string"/>
    <xsl:sequence select="string-join(($blocks ! v:render-block(., $indent))[normalize-space(.) ne ''], $separator)"/>
  </xsl:function>

  <xsl:function name="v:render-block" as="xs:string">
    <xsl:param name="block" as="element()"/>
    <xsl:param name="indent" as="xs:string"/>
    <xsl:choose>
      <xsl:when test="$block/self::t:p">
        <xsl:sequence select="$indent || string($block)"/>
      </xsl:when>
      <xsl:when test="$block/self::t:pre">
        <xsl:sequence select="string($block)"/>
      </xsl:when>
      <xsl:when test="$block/self::t:rows">
        <xsl:sequence select="string-join($block/t:row ! ($indent || string(.)), '&#10;')"/>
      </xsl:when>
      <xsl:otherwise>
        <xsl:sequence select="string-join(($block/t:item ! v:render-item(., $indent))[normalize-space(.) ne ''], '&#10;')"/>
      </xsl:otherwise>
    </xsl:choose>
  </xsl:function>

  <xsl:function name="v:render-item" as="xs:string">
    <xsl:param name="item" as="element(t:item)"/>
    <xsl:param name="indent" as="xs:string"/>
    <xsl:variable name="mark" select="string($item/@mark)"/>
    <xsl:variable name="inner" select="$indent || v:spaces(string-length($mark))"/>
    <xsl:variable name="blocks" select="$item/*"/>
    <xsl:choose>
      <xsl:when test="$blocks[1][self::t:p]">
        <xsl:sequence select="string-join(($indent || $mark || string($blocks[1]),
          v:render(tail($blocks), $inner, '&#10;')[. ne '']), '&#10;')"/>
      </xsl:when>
      <xsl:otherwise>
        <!-- A marker alone on its line when the item starts with a list or verbatim text. -->
        <xsl:variable name="head" select="($indent || normalize-space($mark))[normalize-space(.) ne '']"/>
        <xsl:sequence select="string-join(($head, v:render($blocks, $inner, '&#10;')[. ne '']), '&#10;')"/>
      </xsl:otherwise>
    </xsl:choose>
  </xsl:function>

  <xsl:function name="v:spaces" as="xs:string">
    <xsl:param name="n" as="xs:integer"/>
    <xsl:sequence select="string-join((1 to $n) ! ' ')"/>
  </xsl:function>

  <!-- ===== Code ===== -->

  <!-- Code in $nodes (a chunk's content), outermost code elements only, in document order,
       each once. Nested chunks and skipped content are left out, as in the text. -->
  <xsl:function name="v:code" as="xs:string*">
    <xsl:param name="nodes" as="element()*"/>
    <xsl:variable name="all" as="xs:string*">
      <xsl:apply-templates select="$nodes" mode="v:code"/>
    </xsl:variable>
    <xsl:sequence select="v:distinct-ordered($all[. ne ''])"/>
  </xsl:function>

  <xsl:template match="*" mode="v:code">
    <xsl:apply-templates select="*" mode="v:code"/>
  </xsl:template>

  <xsl:template match="*[v:skipped(.) or v:chunk-type(.) ne '']" mode="v:code" priority="20"/>

  <xsl:template match="*[v:is-any(., $v:code-block-classes)]" mode="v:code" priority="10">
    <xsl:sequence select="v:verbatim(.)"/>
  </xsl:template>

  <xsl:template match="*[v:is-any(., $v:code-phrase-classes)]" mode="v:code" priority="10">
    <xsl:sequence select="normalize-space(v:inline(.))"/>
  </xsl:template>

  <xsl:function name="v:distinct-ordered" as="xs:string*">
    <xsl:param name="values" as="xs:string*"/>
    <xsl:for-each-group select="$values" group-by="." collation="http://www.w3.org/2005/xpath-functions/collation/codepoint">
      <xsl:sequence select="current-grouping-key()"/>
    </xsl:for-each-group>
  </xsl:function>

</xsl:stylesheet>
