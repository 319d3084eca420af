<?xml version="1.0" encoding="UTF-8"?>
<!--
  The export stylesheet as the DITA-OT plugin runs it: xsl/valid-index.xsl (shared with
  `valid export`), then the stylesheets other plugins contribute to the extension point
  org.valid.index.xsl. DITA-OT's integrator writes valid-index-ot.xsl from this template at
  `dita install`, replacing dita:extension with one xsl:import per contribution; imported last,
  they take precedence, e.g. templates in mode v:chunk-type (xsl/chunk.xsl) for a team's own
  specializations.
-->
<xsl:stylesheet version="3.0"
    xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
    xmlns:dita="http://dita-ot.sourceforge.net"
    exclude-result-prefixes="#all">

  <xsl:import href="plugin:org.valid.index:xsl/valid-index.xsl"/>

  <dita:extension id="org.valid.index.xsl"
      behavior="org.dita.dost.platform.ImportXSLAction"
      xmlns:dita="http://dita-ot.sourceforge.net"/>

</xsl:stylesheet>
