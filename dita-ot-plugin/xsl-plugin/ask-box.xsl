<?xml version="1.0" encoding="UTF-8"?>
<!--
  The VALID ask box on every page of an HTML5 build: the ask page of the team's `valid serve` in
  an iframe, opened for this build's profile (`/?generation=NAME`, which the ask page checks
  against the served release). Imported through DITA-OT's dita.xsl.html5 extension point, so it
  also applies to the map's index page (whose stylesheet imports the topic one).

  Added in mode processFTR, after whatever the build's own footer (args.ftr) writes: the box is
  part of the page's footer. Without valid-ask-url (any build but valid-html5) nothing changes.
-->
<xsl:stylesheet version="3.0"
    xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
    xmlns:xs="http://www.w3.org/2001/XMLSchema"
    exclude-result-prefixes="#all">

  <xsl:param name="valid-ask-url" as="xs:string" select="''"/>
  <xsl:param name="valid-ask-profile" as="xs:string" select="''"/>

  <xsl:template match="/ | @* | node()" mode="processFTR">
    <xsl:next-match/>
    <xsl:if test="$valid-ask-url ne ''">
      <aside class="valid-ask" aria-label="Ask these docs" data-valid-profile="{$valid-ask-profile}">
        <iframe src="{$valid-ask-url}/?generation={encode-for-uri($valid-ask-profile)}"
                title="Ask these docs ({$valid-ask-profile})" loading="lazy"
                style="width:100%;height:36rem;border:1px solid #ccc;border-radius:4px"/>
      </aside>
    </xsl:if>
  </xsl:template>

</xsl:stylesheet>
