<?xml version="1.0" encoding="UTF-8"?>
<!--
  Subject scheme reading for the DITA-OT plugin: which attributes a scheme binds, which values it
  declares for one of them, and the implied DITAVAL of a value. The scheme map is read as authored
  (no DTD, so no @class): elements are matched by name. Wrappers such as hasInstance and
  subjectHead are transparent because values are collected with the descendant axis.
  Plugin-only: xsl/ (shared with `valid export`) never imports this module.
-->
<xsl:stylesheet version="3.0"
    xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
    xmlns:xs="http://www.w3.org/2001/XMLSchema"
    xmlns:vp="urn:valid:plugin"
    exclude-result-prefixes="#all">

  <!-- Every attribute name bound by an enumerationdef, in document order, without duplicates. -->
  <xsl:function name="vp:bound-attributes" as="xs:string*">
    <xsl:param name="scheme" as="document-node()"/>
    <xsl:sequence select="distinct-values($scheme//*[local-name() = 'enumerationdef']
                                                    /*[local-name() = 'attributedef']/@name ! string())"/>
  </xsl:function>

  <!-- The attribute profiles are built for: the requested one (it must be bound), else the only
       bound one. Anything else is a configuration error with an actionable message. -->
  <xsl:function name="vp:resolve-attribute" as="xs:string">
    <xsl:param name="scheme" as="document-node()"/>
    <xsl:param name="requested" as="xs:string"/>
    <xsl:param name="scheme-name" as="xs:string"/>
    <xsl:variable name="bound" select="vp:bound-attributes($scheme)"/>
    <xsl:choose>
      <xsl:when test="$requested ne '' and $requested = $bound">
        <xsl:sequence select="$requested"/>
      </xsl:when>
      <xsl:when test="$requested ne ''">
        <xsl:message terminate="yes" select="'VALID: valid.attribute=' || $requested
          || ' is not bound by the subject scheme ' || $scheme-name || ' (bound: '
          || (if (exists($bound)) then string-join($bound, ', ') else 'none') || ')'"/>
      </xsl:when>
      <xsl:when test="count($bound) eq 1">
        <xsl:sequence select="$bound"/>
      </xsl:when>
      <xsl:when test="empty($bound)">
        <xsl:message terminate="yes" select="'VALID: the subject scheme ' || $scheme-name
          || ' binds no attribute (no enumerationdef/attributedef)'"/>
      </xsl:when>
      <xsl:otherwise>
        <xsl:message terminate="yes" select="'VALID: the subject scheme ' || $scheme-name
          || ' binds several attributes (' || string-join($bound, ', ')
          || '); choose one with valid.attribute'"/>
      </xsl:otherwise>
    </xsl:choose>
  </xsl:function>

  <!-- The subjectdefs an enumeration for $attribute points at: the subject its subjectdef
       references by @keyref, or that subjectdef itself when it defines keys inline. -->
  <xsl:function name="vp:bound-subjects" as="element()*">
    <xsl:param name="scheme" as="document-node()"/>
    <xsl:param name="attribute" as="xs:string"/>
    <xsl:for-each select="$scheme//*[local-name() = 'enumerationdef']
                            [*[local-name() = 'attributedef']/@name = $attribute]
                            /*[local-name() = 'subjectdef']">
      <xsl:variable name="ref" select="normalize-space(@keyref)"/>
      <xsl:sequence select="if ($ref ne '')
                            then ($scheme//*[local-name() = 'subjectdef']
                                    [tokenize(normalize-space(@keys), ' ') = $ref])[1]
                            else ."/>
    </xsl:for-each>
  </xsl:function>

  <!-- The subjectdefs whose keys are valid values of $attribute: every descendant of a bound
       subject (the category itself is not a value, as in DITA-OT), in document order. -->
  <xsl:function name="vp:value-subjects" as="element()*">
    <xsl:param name="scheme" as="document-node()"/>
    <xsl:param name="attribute" as="xs:string"/>
    <xsl:sequence select="(vp:bound-subjects($scheme, $attribute)
                             //*[local-name() = 'subjectdef'][normalize-space(@keys) ne '']) / ."/>
  </xsl:function>

  <!-- Valid values of $attribute (every key, aliases included), document order, no duplicates. -->
  <xsl:function name="vp:values" as="xs:string*">
    <xsl:param name="scheme" as="document-node()"/>
    <xsl:param name="attribute" as="xs:string"/>
    <xsl:sequence select="distinct-values(vp:value-subjects($scheme, $attribute)
                                            ! tokenize(normalize-space(@keys), ' '))"/>
  </xsl:function>

  <!-- One profile per subject below the bound subject that has no narrower value below it, plus
       the broader values named in $parents: its first key, document order
       (valid.dita.scheme.SubjectScheme.profile_values). A broader value (unix over mac and linux)
       tags content that applies to every value under it; it is a build only when the writer says so. -->
  <xsl:function name="vp:profile-values" as="xs:string*">
    <xsl:param name="scheme" as="document-node()"/>
    <xsl:param name="attribute" as="xs:string"/>
    <xsl:param name="parents" as="xs:string*"/>
    <xsl:variable name="subjects" select="vp:value-subjects($scheme, $attribute)"/>
    <xsl:for-each select="$parents[not(. = vp:values($scheme, $attribute))]">
      <xsl:message terminate="yes" select="'VALID: valid.parent.profiles names ' || . || ', which is not a value of @'
        || $attribute || ' in the subject scheme'"/>
    </xsl:for-each>
    <xsl:sequence select="distinct-values($subjects
        [empty(.//*[local-name() = 'subjectdef'][normalize-space(@keys) ne ''])
         or tokenize(normalize-space(@keys), ' ') = $parents]
        ! tokenize(normalize-space(@keys), ' ')[1])"/>
  </xsl:function>

  <!-- Display name first, then the other names readers use, as valid export labels a profile:
       topicmeta/navtitle (else @navtitle, else the key), then topicmeta/keywords/keyword. -->
  <xsl:function name="vp:labels" as="xs:string*">
    <xsl:param name="scheme" as="document-node()"/>
    <xsl:param name="attribute" as="xs:string"/>
    <xsl:param name="value" as="xs:string"/>
    <xsl:variable name="subject" select="(vp:value-subjects($scheme, $attribute)
                                            [tokenize(normalize-space(@keys), ' ') = $value])[1]"/>
    <xsl:variable name="meta" select="$subject/*[local-name() = 'topicmeta'][1]"/>
    <xsl:variable name="navtitle" select="($meta//*[local-name() = 'navtitle'] ! normalize-space(.))[. ne ''][last()]"/>
    <xsl:variable name="display" select="($navtitle, normalize-space($subject/@navtitle)[. ne ''], $value)[1]"/>
    <xsl:sequence select="distinct-values(($display,
        $meta//*[local-name() = 'keyword'][parent::*[local-name() = 'keywords']] ! normalize-space(.)[. ne '']))"/>
  </xsl:function>

  <!-- Tokens of an attribute value, DITA 1.3 group syntax parsed: `g(a b) c` gives a, b, c (the
       group name is not a value). Group names follow DITA-OT's \w+ pattern. -->
  <xsl:function name="vp:tokens" as="xs:string*">
    <xsl:param name="value" as="xs:string"/>
    <xsl:variable name="groups" select="analyze-string($value, '\w+\(([^)]*)\)')"/>
    <xsl:sequence select="($groups/*:match/*:group, $groups/*:non-match)
                            ! tokenize(normalize-space(.), ' ')[. ne '']"/>
  </xsl:function>

  <!-- The implied DITAVAL of one profile, as text, byte for byte what
       valid.dita.scheme.SubjectScheme.implied_ditaval writes: an attribute-scoped default exclude,
       then an include for every key of the value's subject (aliases), of every subject below it and
       of every broader value above it (nearest first), then an exclude for every other value under
       those broader ones, which DITA-OT's subject-scheme refinement would otherwise include with
       their parent. Never a global default (in DITA-OT a global default exclude would also drop
       content whose other attributes have no rule). -->
  <xsl:function name="vp:implied-ditaval" as="xs:string">
    <xsl:param name="scheme" as="document-node()"/>
    <xsl:param name="attribute" as="xs:string"/>
    <xsl:param name="value" as="xs:string"/>
    <xsl:variable name="subjects" select="vp:value-subjects($scheme, $attribute)"/>
    <xsl:variable name="subject" select="($subjects[tokenize(normalize-space(@keys), ' ') = $value])[1]"/>
    <xsl:variable name="ancestors" select="reverse($subject/ancestor::*[local-name() = 'subjectdef'] intersect $subjects)"/>
    <xsl:variable name="included" select="distinct-values((($subject, $subject//*[local-name() = 'subjectdef']), $ancestors)
                                            ! tokenize(normalize-space(@keys), ' '))"/>
    <xsl:variable name="excluded" select="distinct-values(for $a in $ancestors
                                            return $a//*[local-name() = 'subjectdef'] ! tokenize(normalize-space(@keys), ' '))
                                            [not(. = $included)]"/>
    <xsl:variable name="nl" select="'&#10;'"/>
    <xsl:sequence select="string-join((
        '&lt;?xml version=&quot;1.0&quot; encoding=&quot;UTF-8&quot;?&gt;',
        '&lt;!-- VALID profile ' || $attribute || '=' || $value || ', implied by the subject scheme --&gt;',
        '&lt;val&gt;',
        '  &lt;prop att=&quot;' || vp:escape($attribute) || '&quot; action=&quot;exclude&quot;/&gt;',
        $included ! ('  &lt;prop att=&quot;' || vp:escape($attribute) || '&quot; val=&quot;'
                     || vp:escape(.) || '&quot; action=&quot;include&quot;/&gt;'),
        $excluded ! ('  &lt;prop att=&quot;' || vp:escape($attribute) || '&quot; val=&quot;'
                     || vp:escape(.) || '&quot; action=&quot;exclude&quot;/&gt;'),
        '&lt;/val&gt;',
        ''), $nl)"/>
  </xsl:function>

  <!-- Escape text for an XML attribute value written as text. -->
  <xsl:function name="vp:escape" as="xs:string">
    <xsl:param name="text" as="xs:string"/>
    <xsl:sequence select="$text => replace('&amp;', '&amp;amp;') => replace('&lt;', '&amp;lt;')
                                => replace('&gt;', '&amp;gt;') => replace('&quot;', '&amp;quot;')"/>
  </xsl:function>

</xsl:stylesheet>
