# ruff: noqa: SIM905 (word lists read best as one string per list)
"""General English word lists for keyphrase candidates.

Written from general knowledge of English and of how abstracts are phrased, not from any evaluation
data: function words, verbs common in abstracts, generic words that make a poor first or last word,
and nouns too generic to stand alone.
"""

import re

FUNCTION_WORDS = frozenset(
    """
a an the this that these those there here such same other another each every either neither both
all any some no none nor not only own and or but if then than so as of at by for from in into onto
on off out over under to up down upon whilst amid with within without via per about above across after against
along among amongst around before behind below beneath beside besides between beyond during except
inside near outside since through throughout till toward towards until unlike whereas while whether
though although because unless i me my we us our ours you your he him his she her it its they them
their what which who whom whose where when why how whatever whichever whoever also too very just
even still yet already again ever never often always sometimes usually typically generally mostly
largely mainly particularly especially namely e.g i.e eg ie etc vs versus is are was were be been
being am do does did done doing have has had having can could may might must shall should will would
cannot can't won't don't doesn't isn't aren't wasn't weren't whose more most less least much many
few fewer several various numerous one two three four five six seven eight nine ten first second
third fourth fifth last next previous former latter further furthermore moreover however therefore
thus hence thereby hereby accordingly consequently meanwhile instead rather indeed instance example
well way ways like unlike toward respectively thereof wherein whereby et al
""".split()
)

# Verbs (the inflections that matter) frequent in abstracts; a keyphrase never contains them.
VERBS = frozenset(
    """
propose proposes proposed proposing present presents presented presenting introduce introduces
introduced introducing show shows showed shown showing demonstrate demonstrates demonstrated
demonstrating achieve achieves achieved achieving outperform outperforms outperformed outperforming
use uses used using utilize utilizes utilized utilizing leverage leverages leveraged leveraging
employ employs employed employing apply applies applied applying develop develops developed
developing provide provides provided providing improve improves improved improving enable enables
enabled enabling allow allows allowed allowing obtain obtains obtained obtaining study studies
studied consider considers considered considering investigate investigates investigated
investigating explore explores explored exploring analyze analyzes analyzed analyse analyses
analysed analyzing analysing evaluate evaluates evaluated evaluating conduct conducts conducted
conducting perform performs performed make makes made making yield yields yielded yielding require
requires required requiring remain remains remained remaining become becomes became becoming
establish establishes established establishing prove proves proved proven proving derive derives
derived deriving design designs designed designing address addresses addressed addressing focus
focuses focused focusing aim aims aimed aiming seek seeks sought solve solves solved solving tackle
tackles tackled tackling exhibit exhibits exhibited exhibiting suffer suffers suffered suffering
fail fails failed failing lead leads led leading result results resulted resulting suggest
suggests suggested suggesting reveal reveals revealed revealing find finds found finding observe
observes observed observing note notes noted noting highlight highlights highlighted highlighting
offer offers offered offering include includes included including contain contains contained
containing involve involves involved involving capture captures captured capturing ensure ensures
ensured ensuring extend extends extended extending generalize generalizes generalized generalizing
reduce reduces reduced reducing increase increases increased increasing enhance enhances enhanced
enhancing boost boosts boosted boosting surpass surpasses surpassed surpassing match matches
matched matching compare compares compared comparing validate validates validated validating
verify verifies verified verifying confirm confirms confirmed confirming argue argues argued arguing
claim claims claimed claiming assume assumes assumed assuming believe believes believed
believing know knows knew known think thinks thought tend tends tended tending appear appears
appeared appearing seem seems seemed seeming help helps helped helping take takes took taken
taking give gives gave given giving get gets got gotten getting let lets keep keeps kept keeping
see sees saw seen seeing call calls called calling want wants wanted need needs needed needing
try tries tried trying work works worked working serve serves served serving turn turns turned
turning hold holds held holding bring brings brought bringing put puts set sets build builds built
building run runs ran running come comes came coming go goes went gone going say says said
describe describes described describing define defines defined defining formulate formulates
formulated formulating characterize characterizes characterized characterizing quantify
quantifies quantified quantifying identify identifies identified identifying determine determines
determined determining compute computes computed computing estimate estimates estimated estimating
predict predicts predicted predicting generate generates generated generating produce produces
produced producing achieve attain attains attained attaining maintain maintains maintained
maintaining preserve preserves preserved preserving mitigate mitigates mitigated mitigating
alleviate alleviates alleviated alleviating overcome overcomes overcame overcoming avoid avoids
avoided avoiding prevent prevents prevented preventing handle handles handled handling support
supports supported supporting facilitate facilitates facilitated facilitating incorporate
incorporates incorporated incorporating integrate integrates integrated integrating combine
combines combined combining exploit exploits exploited exploiting benefit benefits benefited
benefiting depend depends depended depending rely relies relied relying lack lacks lacked lacking
exist exists existed existing emerge emerges emerged emerging scale scales scaled remains
motivate motivates motivated motivating inspire inspires inspired inspiring adopt adopts adopted
adopting assess assesses assessed assessing examine examines examined examining measure measures
measured measuring outline outlines outlined report reports reported reporting release releases
released releasing publish published open-source open-sourced implement implements implemented
implementing train trains trained deploy deploys deployed deploying learn learns learned learnt
recover recovers recovered recovering converge converges converged reach reaches reached reaching
admit admits admitted attain enjoy enjoys enjoyed guarantee guarantees guaranteed guaranteeing
satisfy satisfies satisfied satisfying achieve ignore ignores ignored ignoring limit limits
hinder hinders hindered hindering struggle struggles struggled struggling differ differs differed
relate relates related underlie underlies underlying arise arises arose arisen arising allow
complement complements complemented accelerate accelerates accelerated accelerating name names named naming
dub dubbed term termed refer refers referred referring
""".split()
)

# generic adjectives and nouns that make a poor first or last word of a keyphrase
GENERIC_EDGE = frozenset(
    """
approach approaches method methodology technique techniques result results paper papers work works
study studies performance experiment experiments experimental empirical evaluation evaluations
analysis analyses setting settings way ways issue issues challenge challenges solution solutions
strategy strategies scheme schemes tool tools baseline baselines art state-of-the-art sota new
novel existing prior previous current recent proposed simple effective efficient significant
substantial strong stronger superior better best good great large-scale wide wide-range range
variety number numbers amount kind kinds type types form forms part parts level levels case
cases fact terms term order respect aspect aspects step steps stage stages insight insights idea
ideas understanding improvement improvements gain gains advantage advantages limitation
limitations drawback drawbacks application applications scenario scenarios practice practical
practitioners real-world important importance key critical crucial essential fundamental main
major primary common popular standard typical conventional traditional specific particular
certain different diverse similar comparable competitive extensive comprehensive thorough
various widely broad high larger smaller able unable possible impossible available overall whole
entire additional extra potential promising remarkable impressive notable code codes github
project projects quality effectiveness efficiency success successful outcome outcomes
theoretical provable rigorous principled goal goals motivation purpose view perspective light
direction directions question questions answer answers researcher researchers community
literature author authors people contribution contributions capability capabilities ability
abilities need needs time times point points lot lots regard regards basis tasks manner
""".split()
)

# nouns that are too generic to be a keyword on their own (fine as the head of a phrase:
# "diffusion model", "kernel method", "data augmentation")
GENERIC_ALONE = frozenset(
    """
model method algorithm network framework system problem task data dataset benchmark learning
training loss function approach architecture parameter feature input output sample error
information structure space target signal process procedure component module mechanism
property value cost rate set knowledge behavior behaviour context domain field area evidence
theory user human world accuracy objective setting experiment design application
""".split()
)

# size/degree adjectives that may start ("large language model") but not end a phrase
NO_END = frozenset(
    "large small lower upper higher low high fast slow short long deep shallow wide narrow hard soft "
    "dense joint".split()
)

# adjective-like endings that cannot end a keyphrase ("graph neural", "adversarial"),
# with the nouns that share them
ADJECTIVE_ENDING = re.compile(r"(al|ous|ive|ic|able|ible|ful|less|ary|ent|ant)$")
ADJECTIVE_ENDING_NOUNS = frozenset(
    """
retrieval interval signal proposal trial material removal arrival survival animal terminal manual
portal total journal tutorial rival capital metal crystal approval renewal reversal rehearsal
denial dial festival hospital principal potential differential individual criminal editorial
objective derivative alternative initiative representative incentive narrative executive
primitive perspective directive logic topic music traffic metric heuristic arithmetic graphic
epidemic clinic critic mimic fabric topic basic electronic mechanic physic diagnostic
variable table cable label vegetable constant agent gradient component coefficient student
patient client segment element environment experiment argument document moment fragment
instrument treatment assessment alignment adjustment deployment embedding equipment investment
judgment judgement management measurement movement payment placement requirement statement
settlement improvement development enhancement engagement content event extent intent parent
talent percent accent dent tangent descent ascent continent consent present current
torrent determinant quadrant participant assistant variant invariant constant plant giant
tenant merchant servant infant pendant accountant applicant commandant consultant contestant
descendant equivalent opponent exponent proponent resident president incident accident
dictionary boundary summary library vocabulary glossary inventory memory binary secondary
auxiliary adversary salary anniversary itinerary sanctuary commentary documentary primary
""".split()
)

LY_NOUNS = frozenset(
    "anomaly family assembly supply monopoly butterfly italy july reply ply poly apply rely "
    "multiply comply imply ally fly holy jelly belly bully".split()
)
