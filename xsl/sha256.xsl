<?xml version="1.0" encoding="UTF-8"?>
<!--
  SHA-256 (FIPS 180-4) in plain XSLT 3.0, so that every path that runs the stylesheets (saxonche in
  `valid export`, Saxon-HE inside DITA-OT) writes the same chunk digests.

  XPath has no bitwise operators. Words are xs:integer values in [0, 2^32); rotations and shifts are
  integer division and multiplication by powers of two; AND and XOR go byte by byte through two
  65,536-entry tables (one entry per pair of bytes), built once per transformation.
  Text is hashed as UTF-8, encoded here from its code points.
-->
<xsl:stylesheet version="3.0"
  xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
  xmlns:xs="http://www.w3.org/2001/XMLSchema"
  xmlns:v="urn:valid:xsl"
  exclude-result-prefixes="#all">

  <!-- First 32 bits of the fractional parts of the cube roots of the first 64 primes. -->
  <xsl:variable name="v:sha256-k" as="xs:integer+" select="(
    1116352408, 1899447441, 3049323471, 3921009573, 961987163, 1508970993, 2453635748, 2870763221,
    3624381080, 310598401, 607225278, 1426881987, 1925078388, 2162078206, 2614888103, 3248222580,
    3835390401, 4022224774, 264347078, 604807628, 770255983, 1249150122, 1555081692, 1996064986,
    2554220882, 2821834349, 2952996808, 3210313671, 3336571891, 3584528711, 113926993, 338241895,
    666307205, 773529912, 1294757372, 1396182291, 1695183700, 1986661051, 2177026350, 2456956037,
    2730485921, 2820302411, 3259730800, 3345764771, 3516065817, 3600352804, 4094571909, 275423344,
    430227734, 506948616, 659060556, 883997877, 958139571, 1322822218, 1537002063, 1747873779,
    1955562222, 2024104815, 2227730452, 2361852424, 2428436474, 2756734187, 3204031479, 3329325298)"/>

  <!-- First 32 bits of the fractional parts of the square roots of the first 8 primes. -->
  <xsl:variable name="v:sha256-h0" as="xs:integer+" select="(
    1779033703, 3144134277, 1013904242, 2773480762, 1359893119, 2600822924, 528734635, 1541459225)"/>

  <!-- Nibble tables (16 x 16) first, then the byte tables (256 x 256) from them:
       entry a * 256 + b + 1 holds (a XOR b) or (a AND b). -->
  <xsl:variable name="v:xor4" as="xs:integer+" select="
    for $a in 0 to 15, $b in 0 to 15 return
      sum(for $bit in (1, 2, 4, 8) return ((($a idiv $bit) + ($b idiv $bit)) mod 2) * $bit)"/>
  <xsl:variable name="v:and4" as="xs:integer+" select="
    for $a in 0 to 15, $b in 0 to 15 return
      sum(for $bit in (1, 2, 4, 8) return (($a idiv $bit) mod 2) * (($b idiv $bit) mod 2) * $bit)"/>
  <xsl:variable name="v:xor8" as="xs:integer+" select="
    for $a in 0 to 255, $b in 0 to 255 return
      $v:xor4[($a idiv 16) * 16 + $b idiv 16 + 1] * 16 + $v:xor4[($a mod 16) * 16 + $b mod 16 + 1]"/>
  <xsl:variable name="v:and8" as="xs:integer+" select="
    for $a in 0 to 255, $b in 0 to 255 return
      $v:and4[($a idiv 16) * 16 + $b idiv 16 + 1] * 16 + $v:and4[($a mod 16) * 16 + $b mod 16 + 1]"/>

  <!-- The lowercase hex SHA-256 digest of the UTF-8 encoding of $text. -->
  <xsl:function name="v:sha256" as="xs:string">
    <xsl:param name="text" as="xs:string"/>
    <xsl:variable name="bytes" as="xs:integer*" select="v:utf8($text)"/>
    <xsl:variable name="n" as="xs:integer" select="count($bytes)"/>
    <!-- Padding: 0x80, zeros up to 56 mod 64, then the bit length as 8 big-endian bytes. -->
    <xsl:variable name="message" as="xs:integer+" select="
      $bytes, 128, (for $i in 1 to (119 - $n mod 64) mod 64 return 0),
      for $shift in (56, 48, 40, 32, 24, 16, 8, 0) return ($n * 8) idiv v:pow2($shift) mod 256"/>
    <xsl:variable name="words" as="xs:integer+" select="
      for $i in 0 to count($message) idiv 4 - 1 return
        $message[4 * $i + 1] * 16777216 + $message[4 * $i + 2] * 65536
          + $message[4 * $i + 3] * 256 + $message[4 * $i + 4]"/>
    <xsl:variable name="state" as="xs:integer+">
      <xsl:iterate select="0 to count($words) idiv 16 - 1">
        <xsl:param name="h" as="xs:integer+" select="$v:sha256-h0"/>
        <xsl:on-completion select="$h"/>
        <xsl:next-iteration>
          <xsl:with-param name="h" select="v:sha256-block($h, subsequence($words, . * 16 + 1, 16))"/>
        </xsl:next-iteration>
      </xsl:iterate>
    </xsl:variable>
    <xsl:sequence select="string-join($state ! v:hex32(.))"/>
  </xsl:function>

  <!-- One 64-byte block: the 64 rounds over the working variables a..h, with the message schedule
       kept as a sliding window of the last 16 words. Returns the new hash state. -->
  <xsl:function name="v:sha256-block" as="xs:integer+">
    <xsl:param name="h" as="xs:integer+"/>
    <xsl:param name="block" as="xs:integer+"/>
    <xsl:iterate select="1 to 64">
      <xsl:param name="a" as="xs:integer" select="$h[1]"/>
      <xsl:param name="b" as="xs:integer" select="$h[2]"/>
      <xsl:param name="c" as="xs:integer" select="$h[3]"/>
      <xsl:param name="d" as="xs:integer" select="$h[4]"/>
      <xsl:param name="e" as="xs:integer" select="$h[5]"/>
      <xsl:param name="f" as="xs:integer" select="$h[6]"/>
      <xsl:param name="g" as="xs:integer" select="$h[7]"/>
      <xsl:param name="hh" as="xs:integer" select="$h[8]"/>
      <xsl:param name="window" as="xs:integer+" select="$block"/>
      <xsl:on-completion select="
        for-each-pair($h, ($a, $b, $c, $d, $e, $f, $g, $hh), function($x, $y) { ($x + $y) mod 4294967296 })"/>
      <xsl:variable name="t" as="xs:integer" select="."/>
      <!-- W[t] = σ1(W[t-2]) + W[t-7] + σ0(W[t-15]) + W[t-16] once the 16 block words are used up. -->
      <xsl:variable name="w" as="xs:integer" select="
        if ($t le 16) then $window[$t]
        else (v:xor(v:xor(v:rotr($window[15], 17), v:rotr($window[15], 19)), $window[15] idiv 1024)
              + $window[10]
              + v:xor(v:xor(v:rotr($window[2], 7), v:rotr($window[2], 18)), $window[2] idiv 8)
              + $window[1]) mod 4294967296"/>
      <xsl:variable name="sigma1" as="xs:integer" select="v:xor(v:xor(v:rotr($e, 6), v:rotr($e, 11)), v:rotr($e, 25))"/>
      <!-- Ch(e, f, g): the two AND terms share no bit, so adding them is their XOR. -->
      <xsl:variable name="choose" as="xs:integer" select="v:and($e, $f) + v:and(4294967295 - $e, $g)"/>
      <xsl:variable name="t1" as="xs:integer" select="$hh + $sigma1 + $choose + $v:sha256-k[$t] + $w"/>
      <xsl:variable name="sigma0" as="xs:integer" select="v:xor(v:xor(v:rotr($a, 2), v:rotr($a, 13)), v:rotr($a, 22))"/>
      <!-- Maj(a, b, c) = (a AND b) + (c AND (a XOR b)), again two terms with no common bit. -->
      <xsl:variable name="majority" as="xs:integer" select="v:and($a, $b) + v:and($c, v:xor($a, $b))"/>
      <xsl:next-iteration>
        <xsl:with-param name="a" select="($t1 + $sigma0 + $majority) mod 4294967296"/>
        <xsl:with-param name="b" select="$a"/>
        <xsl:with-param name="c" select="$b"/>
        <xsl:with-param name="d" select="$c"/>
        <xsl:with-param name="e" select="($d + $t1) mod 4294967296"/>
        <xsl:with-param name="f" select="$e"/>
        <xsl:with-param name="g" select="$f"/>
        <xsl:with-param name="hh" select="$g"/>
        <xsl:with-param name="window" select="if ($t le 16) then $window else (tail($window), $w)"/>
      </xsl:next-iteration>
    </xsl:iterate>
  </xsl:function>

  <xsl:function name="v:xor" as="xs:integer">
    <xsl:param name="x" as="xs:integer"/>
    <xsl:param name="y" as="xs:integer"/>
    <xsl:sequence select="
        $v:xor8[($x idiv 16777216) * 256 + $y idiv 16777216 + 1] * 16777216
      + $v:xor8[($x idiv 65536 mod 256) * 256 + $y idiv 65536 mod 256 + 1] * 65536
      + $v:xor8[($x idiv 256 mod 256) * 256 + $y idiv 256 mod 256 + 1] * 256
      + $v:xor8[($x mod 256) * 256 + $y mod 256 + 1]"/>
  </xsl:function>

  <xsl:function name="v:and" as="xs:integer">
    <xsl:param name="x" as="xs:integer"/>
    <xsl:param name="y" as="xs:integer"/>
    <xsl:sequence select="
        $v:and8[($x idiv 16777216) * 256 + $y idiv 16777216 + 1] * 16777216
      + $v:and8[($x idiv 65536 mod 256) * 256 + $y idiv 65536 mod 256 + 1] * 65536
      + $v:and8[($x idiv 256 mod 256) * 256 + $y idiv 256 mod 256 + 1] * 256
      + $v:and8[($x mod 256) * 256 + $y mod 256 + 1]"/>
  </xsl:function>

  <!-- Rotate a 32-bit word right by $n bits. -->
  <xsl:function name="v:rotr" as="xs:integer">
    <xsl:param name="x" as="xs:integer"/>
    <xsl:param name="n" as="xs:integer"/>
    <xsl:variable name="low" as="xs:integer" select="v:pow2($n)"/>
    <xsl:sequence select="$x idiv $low + ($x mod $low) * v:pow2(32 - $n)"/>
  </xsl:function>

  <xsl:function name="v:pow2" as="xs:integer">
    <xsl:param name="n" as="xs:integer"/>
    <xsl:sequence select="if ($n ge 32) then v:pow2($n - 32) * 4294967296 else $v:powers-of-two[$n + 1]"/>
  </xsl:function>
  <xsl:variable name="v:powers-of-two" as="xs:integer+" select="
    (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072,
     262144, 524288, 1048576, 2097152, 4194304, 8388608, 16777216, 33554432, 67108864, 134217728,
     268435456, 536870912, 1073741824, 2147483648)"/>

  <xsl:function name="v:hex32" as="xs:string">
    <xsl:param name="x" as="xs:integer"/>
    <xsl:sequence select="string-join(
      for $shift in (28, 24, 20, 16, 12, 8, 4, 0)
      return substring('0123456789abcdef', $x idiv v:pow2($shift) mod 16 + 1, 1))"/>
  </xsl:function>

  <!-- UTF-8 bytes of a string (XPath strings hold code points, never lone surrogates). -->
  <xsl:function name="v:utf8" as="xs:integer*">
    <xsl:param name="text" as="xs:string"/>
    <xsl:sequence select="
      for $c in string-to-codepoints($text) return
        if ($c lt 128) then $c
        else if ($c lt 2048) then (192 + $c idiv 64, 128 + $c mod 64)
        else if ($c lt 65536) then (224 + $c idiv 4096, 128 + $c idiv 64 mod 64, 128 + $c mod 64)
        else (240 + $c idiv 262144, 128 + $c idiv 4096 mod 64, 128 + $c idiv 64 mod 64, 128 + $c mod 64)"/>
  </xsl:function>

</xsl:stylesheet>
