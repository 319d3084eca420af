"""`@class` defaults for the DITA 1.3 vocabulary, so no DTD or RNG is ever read.

In a real build the grammar supplies `@class`; DITA processing (filtering, chunking) matches on its
tokens, never on element names, so specializations work. VALID reads no grammar (it would need the
network or a catalog, and DTDs are where XXE lives), so this table supplies the defaults instead.
An element that already carries `@class` keeps it: a custom specialization can declare its own.

Written from the DITA 1.3 specification's language reference (base topic and map modules, the
technical-content document types and the domains), not copied from any grammar file.
"""

from __future__ import annotations

# One entry per line: element name, then its class value without the surrounding spaces.
# Structural types start with "-", domain elements with "+".
_TABLE = """
# ---- base topic (topic.mod, commonElements.mod) ----
topic               - topic/topic
title               - topic/title
titlealts           - topic/titlealts
navtitle            - topic/navtitle
searchtitle         - topic/searchtitle
abstract            - topic/abstract
shortdesc           - topic/shortdesc
body                - topic/body
bodydiv             - topic/bodydiv
section             - topic/section
sectiondiv          - topic/sectiondiv
example             - topic/example
div                 - topic/div
p                   - topic/p
note                - topic/note
lq                  - topic/lq
longquoteref        - topic/longquoteref
q                   - topic/q
sl                  - topic/sl
sli                 - topic/sli
ul                  - topic/ul
ol                  - topic/ol
li                  - topic/li
itemgroup           - topic/itemgroup
dl                  - topic/dl
dlhead              - topic/dlhead
dthd                - topic/dthd
ddhd                - topic/ddhd
dlentry             - topic/dlentry
dt                  - topic/dt
dd                  - topic/dd
fig                 - topic/fig
figgroup            - topic/figgroup
pre                 - topic/pre
lines               - topic/lines
ph                  - topic/ph
keyword             - topic/keyword
term                - topic/term
text                - topic/text
tm                  - topic/tm
boolean             - topic/boolean
state               - topic/state
image               - topic/image
alt                 - topic/alt
longdescref         - topic/longdescref
object              - topic/object
param               - topic/param
simpletable         - topic/simpletable
sthead              - topic/sthead
strow               - topic/strow
stentry             - topic/stentry
desc                - topic/desc
fn                  - topic/fn
cite                - topic/cite
xref                - topic/xref
indexterm           - topic/indexterm
index-base          - topic/index-base
indextermref        - topic/indextermref
draft-comment       - topic/draft-comment
required-cleanup    - topic/required-cleanup
data                - topic/data
data-about          - topic/data-about
foreign             - topic/foreign
unknown             - topic/unknown
include             - topic/include
no-topic-nesting    - topic/no-topic-nesting
related-links       - topic/related-links
link                - topic/link
linktext            - topic/linktext
linklist            - topic/linklist
linkinfo            - topic/linkinfo
linkpool            - topic/linkpool
table               - topic/table
tgroup              - topic/tgroup
colspec             - topic/colspec
thead               - topic/thead
tbody               - topic/tbody
row                 - topic/row
entry               - topic/entry
# ---- prolog metadata (metaDecl.mod) ----
prolog              - topic/prolog
author              - topic/author
source              - topic/source
publisher           - topic/publisher
copyright           - topic/copyright
copyryear           - topic/copyryear
copyrholder         - topic/copyrholder
critdates           - topic/critdates
created             - topic/created
revised             - topic/revised
permissions         - topic/permissions
metadata            - topic/metadata
audience            - topic/audience
category            - topic/category
keywords            - topic/keywords
prodinfo            - topic/prodinfo
prodname            - topic/prodname
vrmlist             - topic/vrmlist
vrm                 - topic/vrm
brand               - topic/brand
series              - topic/series
platform            - topic/platform
prognum             - topic/prognum
featnum             - topic/featnum
component           - topic/component
othermeta           - topic/othermeta
resourceid          - topic/resourceid
# ---- concept ----
concept             - topic/topic concept/concept
conbody             - topic/body concept/conbody
conbodydiv          - topic/bodydiv concept/conbodydiv
# ---- task (general task: steps-informal, stepsection, steps-unordered) ----
task                - topic/topic task/task
taskbody            - topic/body task/taskbody
prereq              - topic/section task/prereq
context             - topic/section task/context
steps               - topic/ol task/steps
steps-unordered     - topic/ul task/steps-unordered
steps-informal      - topic/section task/steps-informal
stepsection         - topic/li task/stepsection
step                - topic/li task/step
cmd                 - topic/ph task/cmd
info                - topic/itemgroup task/info
tutorialinfo        - topic/itemgroup task/tutorialinfo
stepxmp             - topic/itemgroup task/stepxmp
stepresult          - topic/itemgroup task/stepresult
steptroubleshooting - topic/itemgroup task/steptroubleshooting
substeps            - topic/ol task/substeps
substep             - topic/li task/substep
choices             - topic/ul task/choices
choice              - topic/li task/choice
choicetable         - topic/simpletable task/choicetable
chhead              - topic/sthead task/chhead
choptionhd          - topic/stentry task/choptionhd
chdeschd            - topic/stentry task/chdeschd
chrow               - topic/strow task/chrow
choption            - topic/stentry task/choption
chdesc              - topic/stentry task/chdesc
result              - topic/section task/result
tasktroubleshooting - topic/section task/tasktroubleshooting
postreq             - topic/section task/postreq
# ---- reference ----
reference           - topic/topic reference/reference
refbody             - topic/body reference/refbody
refbodydiv          - topic/bodydiv reference/refbodydiv
refsyn              - topic/section reference/refsyn
properties          - topic/simpletable reference/properties
prophead            - topic/sthead reference/prophead
proptypehd          - topic/stentry reference/proptypehd
propvaluehd         - topic/stentry reference/propvaluehd
propdeschd          - topic/stentry reference/propdeschd
property            - topic/strow reference/property
proptype            - topic/stentry reference/proptype
propvalue           - topic/stentry reference/propvalue
propdesc            - topic/stentry reference/propdesc
# ---- glossary entry and group ----
glossgroup          - topic/topic concept/concept glossgroup/glossgroup
glossentry          - topic/topic concept/concept glossentry/glossentry
glossterm           - topic/title concept/title glossentry/glossterm
glossdef            - topic/abstract concept/abstract glossentry/glossdef
glossBody           - topic/body concept/conbody glossentry/glossBody
glossAlt            - topic/section concept/section glossentry/glossAlt
glossAbbreviation   - topic/title concept/title glossentry/glossAbbreviation
glossAcronym        - topic/title concept/title glossentry/glossAcronym
glossShortForm      - topic/title concept/title glossentry/glossShortForm
glossSynonym        - topic/title concept/title glossentry/glossSynonym
glossSurfaceForm    - topic/p concept/p glossentry/glossSurfaceForm
glossUsage          - topic/note concept/note glossentry/glossUsage
glossScopeNote      - topic/note concept/note glossentry/glossScopeNote
glossStatus         - topic/data concept/data glossentry/glossStatus
glossPartOfSpeech   - topic/data concept/data glossentry/glossPartOfSpeech
glossProperty       - topic/data concept/data glossentry/glossProperty
glossAlternateFor   - topic/xref concept/xref glossentry/glossAlternateFor
glossSymbol         - topic/image concept/image glossentry/glossSymbol
# ---- troubleshooting ----
troubleshooting     - topic/topic troubleshooting/troubleshooting
troublebody         - topic/body troubleshooting/troublebody
condition           - topic/section troubleshooting/condition
troubleSolution     - topic/bodydiv troubleshooting/troubleSolution
cause               - topic/section troubleshooting/cause
remedy              - topic/section troubleshooting/remedy
responsibleParty    - topic/p troubleshooting/responsibleParty
# ---- map ----
map                 - map/map
topicref            - map/topicref
topicmeta           - map/topicmeta
navref              - map/navref
anchor              - map/anchor
reltable            - map/reltable
relheader           - map/relheader
relcolspec          - map/relcolspec
relrow              - map/relrow
relcell             - map/relcell
ux-window           - map/ux-window
# ---- map group domain ----
topicgroup          + map/topicref mapgroup-d/topicgroup
topichead           + map/topicref mapgroup-d/topichead
topicset            + map/topicref mapgroup-d/topicset
topicsetref         + map/topicref mapgroup-d/topicsetref
anchorref           + map/topicref mapgroup-d/anchorref
mapref              + map/topicref mapgroup-d/mapref
keydef              + map/topicref mapgroup-d/keydef
# ---- glossary reference and branch filtering domains (maps) ----
glossref            + map/topicref glossref-d/glossref
ditavalref          + map/topicref ditavalref-d/ditavalref
ditavalmeta         + map/topicmeta ditavalref-d/ditavalmeta
dvrResourcePrefix   + topic/data ditavalref-d/dvrResourcePrefix
dvrResourceSuffix   + topic/data ditavalref-d/dvrResourceSuffix
dvrKeyscopePrefix   + topic/data ditavalref-d/dvrKeyscopePrefix
dvrKeyscopeSuffix   + topic/data ditavalref-d/dvrKeyscopeSuffix
# ---- bookmap ----
bookmap             - map/map bookmap/bookmap
booktitle           - topic/title bookmap/booktitle
mainbooktitle       - topic/ph bookmap/mainbooktitle
booktitlealt        - topic/ph bookmap/booktitlealt
bookmeta            - map/topicmeta bookmap/bookmeta
frontmatter         - map/topicref bookmap/frontmatter
backmatter          - map/topicref bookmap/backmatter
draftintro          - map/topicref bookmap/draftintro
bookabstract        - map/topicref bookmap/bookabstract
dedication          - map/topicref bookmap/dedication
preface             - map/topicref bookmap/preface
chapter             - map/topicref bookmap/chapter
part                - map/topicref bookmap/part
appendices          - map/topicref bookmap/appendices
appendix            - map/topicref bookmap/appendix
notices             - map/topicref bookmap/notices
amendments          - map/topicref bookmap/amendments
colophon            - map/topicref bookmap/colophon
booklists           - map/topicref bookmap/booklists
toc                 - map/topicref bookmap/toc
figurelist          - map/topicref bookmap/figurelist
tablelist           - map/topicref bookmap/tablelist
abbrevlist          - map/topicref bookmap/abbrevlist
trademarklist       - map/topicref bookmap/trademarklist
bibliolist          - map/topicref bookmap/bibliolist
glossarylist        - map/topicref bookmap/glossarylist
indexlist           - map/topicref bookmap/indexlist
booklist            - map/topicref bookmap/booklist
bookid              - topic/data bookmap/bookid
booknumber          - topic/data bookmap/booknumber
isbn                - topic/data bookmap/isbn
bookpartno          - topic/data bookmap/bookpartno
edition             - topic/data bookmap/edition
volume              - topic/data bookmap/volume
maintainer          - topic/data bookmap/maintainer
bookchangehistory   - topic/data bookmap/bookchangehistory
bookevent           - topic/data bookmap/bookevent
bookeventtype       - topic/data bookmap/bookeventtype
publisherinformation - topic/publisher bookmap/publisherinformation
bookrights          - topic/data bookmap/bookrights
bookowner           - topic/data bookmap/bookowner
bookrestriction     - topic/data bookmap/bookrestriction
copyrfirst          - topic/data bookmap/copyrfirst
copyrlast           - topic/data bookmap/copyrlast
printlocation       - topic/data bookmap/printlocation
published           - topic/data bookmap/published
publishtype         - topic/data bookmap/publishtype
approved            - topic/data bookmap/approved
reviewed            - topic/data bookmap/reviewed
tested              - topic/data bookmap/tested
edited              - topic/data bookmap/edited
organization        - topic/data bookmap/organization
person              - topic/data bookmap/person
summary             - topic/ph bookmap/summary
revisionid          - topic/ph bookmap/revisionid
booklibrary         - topic/ph bookmap/booklibrary
started             - topic/ph bookmap/started
completed           - topic/ph bookmap/completed
year                - topic/ph bookmap/year
month               - topic/ph bookmap/month
day                 - topic/ph bookmap/day
# ---- extensible name and address domain (bookmap metadata) ----
authorinformation   + topic/author xnal-d/authorinformation
namedetails         + topic/data xnal-d/namedetails
personname          + topic/data xnal-d/personname
honorific           + topic/data xnal-d/honorific
firstname           + topic/data xnal-d/firstname
middlename          + topic/data xnal-d/middlename
lastname            + topic/data xnal-d/lastname
generationidentifier + topic/data xnal-d/generationidentifier
otherinfo           + topic/data xnal-d/otherinfo
personinfo          + topic/data xnal-d/personinfo
organizationinfo    + topic/data xnal-d/organizationinfo
organizationnamedetails + topic/ph xnal-d/organizationnamedetails
organizationname    + topic/ph xnal-d/organizationname
addressdetails      + topic/ph xnal-d/addressdetails
locality            + topic/ph xnal-d/locality
localityname        + topic/ph xnal-d/localityname
administrativearea  + topic/ph xnal-d/administrativearea
thoroughfare        + topic/ph xnal-d/thoroughfare
postalcode          + topic/ph xnal-d/postalcode
country             + topic/ph xnal-d/country
contactnumbers      + topic/data xnal-d/contactnumbers
contactnumber       + topic/data xnal-d/contactnumber
emailaddresses      + topic/data xnal-d/emailaddresses
emailaddress        + topic/data xnal-d/emailaddress
urls                + topic/data xnal-d/urls
url                 + topic/data xnal-d/url
# ---- subject scheme ----
subjectScheme       - map/map subjectScheme/subjectScheme
schemeref           - map/topicref subjectScheme/schemeref
subjectdef          - map/topicref subjectScheme/subjectdef
subjectHead         - map/topicref subjectScheme/subjectHead
subjectHeadMeta     - map/topicmeta subjectScheme/subjectHeadMeta
hasNarrower         - map/topicref subjectScheme/hasNarrower
hasKind             - map/topicref subjectScheme/hasKind
hasPart             - map/topicref subjectScheme/hasPart
hasInstance         - map/topicref subjectScheme/hasInstance
hasRelated          - map/topicref subjectScheme/hasRelated
enumerationdef      - map/topicref subjectScheme/enumerationdef
elementdef          - topic/data subjectScheme/elementdef
attributedef        - topic/data subjectScheme/attributedef
defaultSubject      - map/topicref subjectScheme/defaultSubject
relatedSubjects     - map/topicref subjectScheme/relatedSubjects
subjectRelTable     - map/reltable subjectScheme/subjectRelTable
subjectRelHeader    - map/relrow subjectScheme/subjectRelHeader
subjectRel          - map/relrow subjectScheme/subjectRel
subjectRole         - map/relcell subjectScheme/subjectRole
# ---- classification domain (maps) ----
topicsubject        + map/topicref classify-d/topicsubject
topicapply          + map/topicref classify-d/topicapply
subjectref          + map/topicref classify-d/subjectref
topicSubjectTable   + map/reltable classify-d/topicSubjectTable
topicSubjectHeader  + map/relrow classify-d/topicSubjectHeader
topicSubjectRow     + map/relrow classify-d/topicSubjectRow
topicCell           + map/relcell classify-d/topicCell
subjectCell         + map/relcell classify-d/subjectCell
# ---- highlighting domain ----
b                   + topic/ph hi-d/b
i                   + topic/ph hi-d/i
u                   + topic/ph hi-d/u
tt                  + topic/ph hi-d/tt
sup                 + topic/ph hi-d/sup
sub                 + topic/ph hi-d/sub
line-through        + topic/ph hi-d/line-through
overline            + topic/ph hi-d/overline
# ---- programming domain ----
codeph              + topic/ph pr-d/codeph
codeblock           + topic/pre pr-d/codeblock
coderef             + topic/xref pr-d/coderef
option              + topic/keyword pr-d/option
var                 + topic/ph pr-d/var
parmname            + topic/keyword pr-d/parmname
apiname             + topic/keyword pr-d/apiname
synph               + topic/ph pr-d/synph
oper                + topic/ph pr-d/oper
delim               + topic/ph pr-d/delim
sep                 + topic/ph pr-d/sep
repsep              + topic/ph pr-d/repsep
kwd                 + topic/keyword pr-d/kwd
parml               + topic/dl pr-d/parml
plentry             + topic/dlentry pr-d/plentry
pt                  + topic/dt pr-d/pt
pd                  + topic/dd pr-d/pd
syntaxdiagram       + topic/fig pr-d/syntaxdiagram
synblk              + topic/figgroup pr-d/synblk
groupseq            + topic/figgroup pr-d/groupseq
groupchoice         + topic/figgroup pr-d/groupchoice
groupcomp           + topic/figgroup pr-d/groupcomp
fragment            + topic/figgroup pr-d/fragment
fragref             + topic/xref pr-d/fragref
synnote             + topic/fn pr-d/synnote
synnoteref          + topic/xref pr-d/synnoteref
# ---- software domain ----
msgph               + topic/ph sw-d/msgph
msgblock            + topic/pre sw-d/msgblock
msgnum              + topic/keyword sw-d/msgnum
cmdname             + topic/keyword sw-d/cmdname
varname             + topic/keyword sw-d/varname
filepath            + topic/ph sw-d/filepath
userinput           + topic/ph sw-d/userinput
systemoutput        + topic/ph sw-d/systemoutput
# ---- user interface domain ----
uicontrol           + topic/ph ui-d/uicontrol
wintitle            + topic/keyword ui-d/wintitle
menucascade         + topic/ph ui-d/menucascade
shortcut            + topic/keyword ui-d/shortcut
screen              + topic/pre ui-d/screen
# ---- utilities domain ----
imagemap            + topic/fig ut-d/imagemap
area                + topic/figgroup ut-d/area
shape               + topic/keyword ut-d/shape
coords              + topic/ph ut-d/coords
sort-as             + topic/data ut-d/sort-as
# ---- indexing domain ----
index-see           + topic/index-base indexing-d/index-see
index-see-also      + topic/index-base indexing-d/index-see-also
index-sort-as       + topic/index-base indexing-d/index-sort-as
# ---- hazard statement domain ----
hazardstatement     + topic/note hazard-d/hazardstatement
messagepanel        + topic/ul hazard-d/messagepanel
typeofhazard        + topic/li hazard-d/typeofhazard
consequence         + topic/li hazard-d/consequence
howtoavoid          + topic/li hazard-d/howtoavoid
hazardsymbol        + topic/image hazard-d/hazardsymbol
# ---- abbreviated form domain ----
abbreviated-form    + topic/term abbrev-d/abbreviated-form
# ---- markup and XML mention domains ----
markupname          + topic/keyword markup-d/markupname
xmlelement          + topic/keyword markup-d/markupname xml-d/xmlelement
xmlatt              + topic/keyword markup-d/markupname xml-d/xmlatt
textentity          + topic/keyword markup-d/markupname xml-d/textentity
parameterentity     + topic/keyword markup-d/markupname xml-d/parameterentity
numcharref          + topic/keyword markup-d/markupname xml-d/numcharref
xmlnsname           + topic/keyword markup-d/markupname xml-d/xmlnsname
xmlpi               + topic/keyword markup-d/markupname xml-d/xmlpi
# ---- delayed conref resolution domain ----
exportanchors       + topic/keywords delay-d/exportanchors
anchorid            + topic/keyword delay-d/anchorid
anchorkey           + topic/keyword delay-d/anchorkey
# ---- equation, MathML and SVG domains (only the DITA wrappers; their content is foreign) ----
equation-inline     + topic/ph equation-d/equation-inline
equation-block      + topic/div equation-d/equation-block
equation-number     + topic/ph equation-d/equation-number
equation-figure     + topic/fig equation-d/equation-figure
mathml              + topic/foreign mathml-d/mathml
mathmlref           + topic/xref mathml-d/mathmlref
svg-container       + topic/foreign svg-d/svg-container
svgref              + topic/xref svg-d/svgref
# ---- release management domain ----
change-historylist  + topic/metadata relmgmt-d/change-historylist
change-item         + topic/data relmgmt-d/change-item
change-person       + topic/data relmgmt-d/change-person
change-organization + topic/data relmgmt-d/change-organization
change-revisionid   + topic/data relmgmt-d/change-revisionid
change-request-reference + topic/data relmgmt-d/change-request-reference
change-request-system + topic/data relmgmt-d/change-request-system
change-request-id   + topic/data relmgmt-d/change-request-id
change-started      + topic/data relmgmt-d/change-started
change-completed    + topic/data relmgmt-d/change-completed
change-summary      + topic/data relmgmt-d/change-summary
"""


def _parse(table: str) -> dict[str, str]:
    classes: dict[str, str] = {}
    for raw in table.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        name, value = line.split(None, 1)
        if name in classes:
            raise AssertionError(f"duplicate class default for {name}")
        classes[name] = f" {value.strip()} "  # DITA class values start and end with a space
    return classes


CLASS_DEFAULTS: dict[str, str] = _parse(_TABLE)

# Attribute defaults the grammars give that change what a processor does with an element.
ATTRIBUTE_DEFAULTS: dict[str, dict[str, str]] = {
    "keydef": {"processing-role": "resource-only"},
    "mapref": {"format": "ditamap"},
    "schemeref": {"format": "ditamap"},
}

# Elements with no @class by design: the composite document wrapper.
UNCLASSIFIED_BY_DESIGN = frozenset({"dita"})

# The tokens other modules match on (always with surrounding spaces, as DITA processors do).
TOPIC = " topic/topic "
MAP = " map/map "
TOPICREF = " map/topicref "
TOPICMETA = " map/topicmeta "
MAPREF = " mapgroup-d/mapref "
KEYDEF = " mapgroup-d/keydef "
FOREIGN = " topic/foreign "
UNKNOWN = " topic/unknown "
SUBMAP_CLASS = "+ map/topicref mapgroup-d/topicgroup ditaot-d/submap "
SUBJECT_SCHEME = " subjectScheme/subjectScheme "


def default_class(name: str) -> str | None:
    """The `@class` value the DITA 1.3 grammars give an element of this (unprefixed) name."""
    return CLASS_DEFAULTS.get(name)


def has_class(element, token: str) -> bool:
    """True if the element's @class contains the token (e.g. ' topic/section ')."""
    value = element.get("class")
    return value is not None and token in value
