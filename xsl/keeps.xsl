<?xml version="1.0" encoding="UTF-8"?>
<!--
  What each profile keeps: for every attribute the subject scheme binds, the scheme's values whose
  content the profile's DITAVAL keeps, each with the names the scheme gives it. Profiles defined
  over several attributes (a product on a platform) are named by these values: a reader asks
  about "Relay Server on Windows", never about "server-windows".

  A value of attribute A is kept unless the DITAVAL's action for it is exclude, where the action
  is, first found: a prop on A for the value's own keys, then for the keys of its nearest ancestor
  value that has one (subject-scheme refinement), then A's default (prop att="A" without val),
  then the global default (prop without att), else include. The first prop for a key wins, as in
  DITA-OT (valid.dita.ditaval). An attribute whose every value is kept does not narrow the profile
  and is left out; so is everything when the profile has no DITAVAL or there is no scheme.

  Values are the keys of the subjectdefs below the bound subject (the category itself is not a
  value), one per subjectdef (its first key), in document order. Names: topicmeta/navtitle, else
  @navtitle, then topicmeta/keywords/keyword (v:scheme-names), else the key.
-->
<xsl:stylesheet version="3.0"
  xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
  xmlns:xs="http://www.w3.org/2001/XMLSchema"
  xmlns:map="http://www.w3.org/2005/xpath-functions/map"
  xmlns:v="urn:valid:xsl"
  exclude-result-prefixes="#all"
  default-collation="http://www.w3.org/2005/xpath-functions/collation/codepoint">

  <!-- One map {attribute, values: array of {value, names}} per attribute the DITAVAL narrows,
       in the scheme's binding order. -->
  <xsl:function name="v:keeps" as="map(*)*">
    <xsl:param name="ditaval" as="element()?"/>
    <xsl:param name="scheme" as="element()?"/>
    <xsl:if test="exists($ditaval) and exists($scheme)">
      <xsl:variable name="props" select="$ditaval//*[local-name() eq 'prop']"/>
      <xsl:for-each select="v:bound-attributes($scheme)">
        <xsl:variable name="att" select="string(.)"/>
        <xsl:variable name="bound" select="v:bound-subjects($scheme, $att)"/>
        <xsl:variable name="values" select="v:value-subjects($bound)"/>
        <xsl:variable name="kept" select="$values[v:kept($props, $att, ., $bound)]"/>
        <xsl:if test="count($kept) lt count($values)">
          <xsl:sequence select="map{
            'attribute': $att,
            'values': array{$kept ! map{'value': v:first-key(.), 'names': v:value-names(.)}}}"/>
        </xsl:if>
      </xsl:for-each>
    </xsl:if>
  </xsl:function>

  <!-- The profile's DITAVAL: the run document's profile/@ditaval, resolved against the run. -->
  <xsl:function name="v:profile-ditaval" as="element()?">
    <xsl:param name="profile" as="element()"/>
    <xsl:param name="run-uri" as="xs:string"/>
    <xsl:if test="normalize-space($profile/@ditaval)">
      <xsl:variable name="uri" select="string(resolve-uri($profile/@ditaval, $run-uri))"/>
      <xsl:if test="not(doc-available($uri))">
        <xsl:message terminate="yes" error-code="v:run">cannot read the DITAVAL of profile {$profile/@name}: {v:file-path($uri)}</xsl:message>
      </xsl:if>
      <xsl:sequence select="doc($uri)/*"/>
    </xsl:if>
  </xsl:function>

  <xsl:function name="v:kept" as="xs:boolean">
    <xsl:param name="props" as="element()*"/>
    <xsl:param name="att" as="xs:string"/>
    <xsl:param name="subject" as="element()"/>
    <xsl:param name="bound" as="element()*"/>
    <xsl:variable name="on-att" select="$props[string(@att) eq $att]"/>
    <!-- The value itself, then its ancestors up to the bound subject, nearest first. -->
    <xsl:variable name="chain" select="reverse(
      ($subject/ancestor-or-self::* intersect $bound/descendant-or-self::*)[v:is-subjectdef(.)])"/>
    <xsl:variable name="ruled" select="for $s in $chain
      return $on-att[string(@val) = tokenize(normalize-space($s/@keys))][1]"/>
    <xsl:variable name="action" select="(
      $ruled[1]/@action,
      $on-att[string(@val) eq ''][1]/@action,
      $props[string(@att) eq ''][string(@val) eq ''][1]/@action,
      'include')[1]"/>
    <xsl:sequence select="string($action) ne 'exclude'"/>
  </xsl:function>

  <!-- Attributes bound by an enumerationdef, document order, each once. -->
  <xsl:function name="v:bound-attributes" as="xs:string*">
    <xsl:param name="scheme" as="element()"/>
    <xsl:sequence select="distinct-values(
      v:enumerationdefs($scheme)
             /*[v:is-element(., ' subjectScheme/attributedef ', 'attributedef')]/@name ! normalize-space(.))"/>
  </xsl:function>

  <!-- The subjects an enumeration for $att binds: the subjectdef its @keyref names, or the
       enumeration's own subjectdef when it defines keys inline. -->
  <xsl:function name="v:bound-subjects" as="element()*">
    <xsl:param name="scheme" as="element()"/>
    <xsl:param name="att" as="xs:string"/>
    <xsl:sequence select="(
      for $e in v:enumerationdefs($scheme)
                         [*[v:is-element(., ' subjectScheme/attributedef ', 'attributedef')]/@name = $att]
                         /*[v:is-subjectdef(.)]
      return if (normalize-space($e/@keyref))
             then ($scheme//*[@keys][v:is-subjectdef(.)][tokenize(normalize-space(@keys)) = normalize-space($e/@keyref)])[1]
             else $e) / ."/>
  </xsl:function>

  <!-- The enumerationdefs below $scheme, document order. Each profile and attribute asks, so the
       scheme's document is searched once (a key) when $scheme is its root element. -->
  <xsl:key name="v:enumerationdef" match="*[v:is-element(., ' subjectScheme/enumerationdef ', 'enumerationdef')]" use="''"/>

  <xsl:function name="v:enumerationdefs" as="element()*">
    <xsl:param name="scheme" as="element()"/>
    <xsl:sequence select="
      if (root($scheme) instance of document-node() and ($scheme is root($scheme)/*[1]))
      then key('v:enumerationdef', '', root($scheme)) except $scheme
      else $scheme//*[v:is-element(., ' subjectScheme/enumerationdef ', 'enumerationdef')]"/>
  </xsl:function>

  <!-- One subjectdef per value (its first key), document order. -->
  <xsl:function name="v:value-subjects" as="element()*">
    <xsl:param name="bound" as="element()*"/>
    <xsl:for-each-group select="($bound//*[v:is-subjectdef(.)][normalize-space(@keys)]) / ." group-by="v:first-key(.)">
      <xsl:sequence select="current-group()[1]"/>
    </xsl:for-each-group>
  </xsl:function>

  <xsl:function name="v:first-key" as="xs:string">
    <xsl:param name="subject" as="element()"/>
    <xsl:sequence select="tokenize(normalize-space($subject/@keys))[1]"/>
  </xsl:function>

  <xsl:function name="v:value-names" as="xs:string+">
    <xsl:param name="subject" as="element()"/>
    <xsl:variable name="names" select="v:scheme-names($subject)"/>
    <xsl:sequence select="if (exists($names)) then v:distinct-ordered($names) else v:first-key($subject)"/>
  </xsl:function>

</xsl:stylesheet>
