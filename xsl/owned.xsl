<?xml version="1.0" encoding="UTF-8"?>
<!--
  Owned values (values the doc set itself ties to some profiles and so to no other) and profile
  labels.

  rule "keydef": in each profile's filtered map, the first definition in document order of each key
  name (root key scope only: definitions under an element with @keyscope are skipped; subject scheme
  definitions too). Its text is topicmeta/keywords/keyword (the first), else topicmeta/linktext,
  else topicmeta/navtitle, else @navtitle, whitespace-normalized. A distinct non-empty text that only
  some of the profiles defining the key hold is owned by those profiles.

  rule "scheme-data": <data name="valid-value" value="V"/> belongs to its nearest enclosing
  subjectdef with @keys; it is owned by the profiles named by that subjectdef's keys or the keys of
  the subjectdefs below it (so a value under a family subject is owned by every profile in the
  family). A value that would belong to every profile, or to none, is not owned.

  Labels of a profile: its <label> elements in the run document, else the display name
  (navtitle) and other names (keywords/keyword) of the subjectdef whose key is the profile name,
  else the profile name.

  The subject scheme may be a source file (no @class: element names stand in for the class tokens
  the DTD would supply) or subjectdefs inlined into a temp map.
-->
<xsl:stylesheet version="3.0"
  xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
  xmlns:xs="http://www.w3.org/2001/XMLSchema"
  xmlns:map="http://www.w3.org/2005/xpath-functions/map"
  xmlns:v="urn:valid:xsl"
  exclude-result-prefixes="#all"
  default-collation="http://www.w3.org/2005/xpath-functions/collation/codepoint">

  <!-- Owned values as maps {value, profiles, rule, key, source}, sorted by rule, key, value, profiles. -->
  <xsl:function name="v:owned-values" as="map(*)*">
    <xsl:param name="jobs" as="map(*)*"/>
    <xsl:param name="profiles" as="xs:string+"/>
    <xsl:param name="scheme" as="element()?"/>
    <xsl:param name="src-base" as="xs:string"/>
    <xsl:variable name="all" as="map(*)*" select="
      v:keydef-values($jobs, $src-base), v:scheme-values($scheme, $profiles, $src-base)"/>
    <xsl:variable name="distinct" as="map(*)*">
      <xsl:for-each-group select="$all" group-by="string-join((?rule, ?key, ?value, ?profiles), '&#10;')">
        <xsl:sequence select="current-group()[1]"/>
      </xsl:for-each-group>
    </xsl:variable>
    <xsl:perform-sort select="$distinct">
      <xsl:sort select="?rule"/>
      <xsl:sort select="string(?key)"/>
      <xsl:sort select="?value"/>
      <xsl:sort select="string-join(?profiles, '+')"/>
    </xsl:perform-sort>
  </xsl:function>

  <xsl:function name="v:keydef-values" as="map(*)*">
    <xsl:param name="jobs" as="map(*)*"/>
    <xsl:param name="src-base" as="xs:string"/>
    <xsl:for-each-group select="$jobs ! v:key-definitions(.)" group-by="?key">
      <xsl:variable name="key" select="current-grouping-key()"/>
      <xsl:variable name="defining" select="current-group() ! ?profile"/>
      <xsl:for-each-group select="current-group()[?text ne '']" group-by="?text">
        <xsl:if test="count(current-group()) lt count($defining)">
          <xsl:sequence select="map{
            'value': current-grouping-key(),
            'profiles': current-group() ! ?profile,
            'rule': 'keydef',
            'key': $key,
            'source': v:source(current-group()[1]?node, $src-base)}"/>
        </xsl:if>
      </xsl:for-each-group>
    </xsl:for-each-group>
  </xsl:function>

  <!-- The effective definition of each key in one profile's map: {key, profile, text, node}. -->
  <xsl:function name="v:key-definitions" as="map(*)*">
    <xsl:param name="job" as="map(*)"/>
    <xsl:variable name="map" select="$job?map"/>
    <xsl:variable name="definitions" as="map(*)*" select="
      for $e in $map//*[@keys][v:is(., ' map/topicref ')][normalize-space(@keys)]
                       [not(contains(@class, ' subjectScheme/'))]
                       [empty(ancestor::*[@keyscope] except $map)],
          $key in tokenize($e/@keys)
      return map{'key': $key, 'node': $e}"/>
    <xsl:for-each-group select="$definitions" group-by="?key">
      <xsl:sequence select="map{
        'key': current-grouping-key(),
        'profile': $job?profile,
        'text': v:key-text(current-group()[1]?node),
        'node': current-group()[1]?node}"/>
    </xsl:for-each-group>
  </xsl:function>

  <xsl:function name="v:key-text" as="xs:string">
    <xsl:param name="definition" as="element()"/>
    <xsl:variable name="meta" select="$definition/*[v:is(., ' map/topicmeta ')]"/>
    <xsl:sequence select="(
      $meta/*[v:is(., ' topic/keywords ')]/*[v:is(., ' topic/keyword ')][1] ! normalize-space(v:inline(.)),
      $meta/*[v:is(., ' map/linktext ')] ! normalize-space(v:inline(.)),
      $meta/*[v:is(., ' topic/navtitle ')] ! normalize-space(v:inline(.)),
      normalize-space($definition/@navtitle))[. ne ''][1] => string()"/>
  </xsl:function>

  <xsl:function name="v:scheme-values" as="map(*)*">
    <xsl:param name="scheme" as="element()?"/>
    <xsl:param name="profiles" as="xs:string+"/>
    <xsl:param name="src-base" as="xs:string"/>
    <xsl:for-each select="$scheme//*[@name eq 'valid-value'][v:is-element(., ' topic/data ', 'data')][normalize-space(@value)]">
      <xsl:variable name="owner" select="ancestor::*[v:is-subjectdef(.)][normalize-space(@keys)][1]"/>
      <xsl:variable name="keys" select="$owner/descendant-or-self::*[v:is-subjectdef(.)]/@keys ! tokenize(.)"/>
      <xsl:variable name="owners" select="$profiles[. = $keys]"/>
      <xsl:if test="exists($owners) and count($owners) lt count($profiles)">
        <xsl:sequence select="map{
          'value': normalize-space(@value),
          'profiles': $owners,
          'rule': 'scheme-data',
          'source': v:source(., $src-base)}"/>
      </xsl:if>
    </xsl:for-each>
  </xsl:function>

  <xsl:function name="v:labels" as="xs:string+">
    <xsl:param name="profile" as="element()"/>
    <xsl:param name="scheme" as="element()?"/>
    <xsl:variable name="name" select="string($profile/@name)"/>
    <xsl:variable name="given" select="($profile/*[local-name() eq 'label'] ! normalize-space(.))[. ne '']"/>
    <xsl:variable name="subject" select="($scheme//*[@keys][v:is-subjectdef(.)][tokenize(@keys) = $name])[1]"/>
    <xsl:variable name="from-scheme" select="$subject ! v:scheme-names(.)"/>
    <xsl:sequence select="v:distinct-ordered(
      if (exists($given)) then $given else if (exists($from-scheme)) then $from-scheme else $name)"/>
  </xsl:function>

  <!-- The names a subjectdef gives its value: display name (navtitle, else @navtitle), then the
       other names readers use (keywords/keyword); empty when it gives none. -->
  <xsl:function name="v:scheme-names" as="xs:string*">
    <xsl:param name="subject" as="element()"/>
    <xsl:variable name="meta" select="$subject/*[v:is-element(., ' map/topicmeta ', 'topicmeta')]"/>
    <xsl:sequence select="(
      $meta/*[v:is-element(., ' topic/navtitle ', 'navtitle')] ! normalize-space(v:inline(.)),
      normalize-space($subject/@navtitle),
      $meta/*[v:is-element(., ' topic/keywords ', 'keywords')]/*[v:is-element(., ' topic/keyword ', 'keyword')]
        ! normalize-space(v:inline(.)))[. ne '']"/>
  </xsl:function>

  <xsl:function name="v:is-subjectdef" as="xs:boolean">
    <xsl:param name="e" as="element()"/>
    <xsl:sequence select="v:is-element($e, ' subjectScheme/subjectdef ', 'subjectdef')"/>
  </xsl:function>

  <!-- A class test that falls back to the element name for source files read without their DTD. -->
  <xsl:function name="v:is-element" as="xs:boolean">
    <xsl:param name="e" as="element()"/>
    <xsl:param name="class-token" as="xs:string"/>
    <xsl:param name="name" as="xs:string"/>
    <xsl:sequence select="if ($e/@class) then contains($e/@class, $class-token) else local-name($e) eq $name"/>
  </xsl:function>

</xsl:stylesheet>
