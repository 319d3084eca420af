<?xml version="1.0" encoding="UTF-8"?>
<!--
  Chunking of common topic types whose parts only make sense together (all matching on @class).

  Glossary entries (' glossentry/glossentry '): one body chunk holding the term, the definition
    (glossdef) and the glossBody, alternate forms included: a glossAlt is not a chunk of its own,
    and each alternate form is labelled ("Acronym: TPU").
  Troubleshooting (' troubleshooting/troubleshooting '): a condition is a section chunk; each
    troubleSolution is one chunk holding its cause and its remedy (steps included), each labelled
    with its title or, untitled, "Cause" / "Remedy" (the headings DITA-OT generates), so a remedy
    never loses the cause it answers. An untitled condition's chunk is titled "Condition".
  Reference topics need nothing here: properties is a simpletable (a table chunk, one row per
    property) and refsyn a section (syntax diagrams render as text).
-->
<xsl:stylesheet version="3.0"
  xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
  xmlns:xs="http://www.w3.org/2001/XMLSchema"
  xmlns:v="urn:valid:xsl"
  xmlns:t="urn:valid:xsl:blocks"
  exclude-result-prefixes="#all"
  expand-text="yes">

  <!-- True for an element that would be a chunk by its class but belongs to a larger unit. -->
  <xsl:function name="v:in-unit" as="xs:boolean">
    <xsl:param name="e" as="element()"/>
    <xsl:sequence select="
      v:is($e, ' glossentry/glossAlt ')
      or exists($e/ancestor::*[v:is(., ' troubleshooting/troubleSolution ')])"/>
  </xsl:function>

  <!-- The chunk type of a unit element (by its @class), '' for any other element. -->
  <xsl:function name="v:unit-type" as="xs:string">
    <xsl:param name="class" as="xs:string"/>
    <xsl:sequence select="if (contains($class, ' troubleshooting/troubleSolution ')) then 'section' else ''"/>
  </xsl:function>

  <!-- A chunk's title when the element has none of its own: the label DITA-OT generates. -->
  <xsl:function name="v:unit-title" as="xs:string">
    <xsl:param name="e" as="element()"/>
    <xsl:sequence select="
      if (v:is($e, ' troubleshooting/troubleSolution ')) then
        ((($e/*[v:is(., ' troubleshooting/cause ')], $e/*[v:is(., ' troubleshooting/remedy ')])
           ! v:title-text(*[v:is(., ' topic/title ')][1]))[. ne ''], 'Cause and remedy')[1]
      else if (v:is($e, ' troubleshooting/condition ')) then 'Condition'
      else ''"/>
  </xsl:function>

  <!-- Blocks that open a topic's body chunk: a glossary entry's term. -->
  <xsl:function name="v:topic-lead" as="element()*">
    <xsl:param name="topic" as="element()"/>
    <xsl:if test="v:is($topic, ' glossentry/glossentry ')">
      <xsl:variable name="term" select="v:title-text($topic/*[v:is(., ' topic/title ')][1])"/>
      <xsl:if test="$term ne ''">
        <t:p>{$term}</t:p>
      </xsl:if>
    </xsl:if>
  </xsl:function>

  <!-- An alternate form of a glossary term: "Acronym: TPU", then its usage notes. -->
  <xsl:template match="*[v:is(., ' glossentry/glossAlt ')]" mode="v:block" priority="30">
    <xsl:for-each select="*">
      <xsl:variable name="label" select="
        if (v:is(., ' glossentry/glossAbbreviation ')) then 'Abbreviation'
        else if (v:is(., ' glossentry/glossAcronym ')) then 'Acronym'
        else if (v:is(., ' glossentry/glossShortForm ')) then 'Short form'
        else if (v:is(., ' glossentry/glossSynonym ')) then 'Synonym'
        else ''"/>
      <xsl:choose>
        <xsl:when test="$label ne ''">
          <xsl:variable name="form" select="v:title-text(.)"/>
          <xsl:if test="$form ne ''">
            <t:p>{$label}: {$form}</t:p>
          </xsl:if>
        </xsl:when>
        <xsl:otherwise>
          <xsl:sequence select="v:flow(.)"/>
        </xsl:otherwise>
      </xsl:choose>
    </xsl:for-each>
  </xsl:template>

  <!-- Cause and remedy inside a troubleSolution chunk: a heading line, then the content. -->
  <xsl:template match="*[v:is(., ' troubleshooting/cause ') or v:is(., ' troubleshooting/remedy ')]"
                mode="v:block" priority="30">
    <xsl:variable name="title" select="v:title-text(*[v:is(., ' topic/title ')][1])"/>
    <xsl:variable name="label" select="if (v:is(., ' troubleshooting/cause ')) then 'Cause' else 'Remedy'"/>
    <t:p>{if ($title ne '') then $title else $label}:</t:p>
    <xsl:sequence select="v:flow(node()[not(. instance of element() and v:is(., ' topic/title '))])"/>
  </xsl:template>

</xsl:stylesheet>
