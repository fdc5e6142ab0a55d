#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The userspace twin's levels, the pair of CPUs each is timed on and the
# cache that pair loses, against hwloc (lstopo), what the field trusts for
# topology: on this host, and on fake sysfs trees (tests/lib.sh) that both
# read, the twin with --sysfs, hwloc with HWLOC_FSROOT and
# HWLOC_COMPONENTS=linux,stop (else its x86 backend adds this host's CPUID
# to the fake packages).  hwloc reads the trees' masks (core_cpus,
# cluster_cpus, package_cpus, each cache's shared_cpu_map, each node's
# cpumap and distance), the twin their lists.
#
# What a pair of CPUs a, b crosses is the kernel's rule applied to
# hwloc's objects, not to sysfs' files:
#  - a and b in different NUMA nodes: the rank of their distance among the
#    distances between nodes that have CPUs (0 NODE, 1 NUMA, 2 NUMA2...).
#    hwloc keeps memory-only nodes (CXL) and their distances, the kernel's
#    sched_init_numa() does not: they are left out here.
#  - else by the objects above a's PU that hold b: a Core, SMT; else a
#    Cluster group, CLS (hwloc's group from cluster_cpus, kept with
#    HWLOC_DONT_MERGE_CLUSTER_GROUPS=1 where it equals the L2); else a
#    data or unified cache, MC (an L2 shared by cores that sysfs does not
#    call a cluster too: the kernel has no CLS without cluster_cpus); else
#    PKG.  Not the lowest common ancestor's type: an L3 over two nodes
#    (SNC) is above hwloc's Group of each node, the kernel's MC is the L3
#    within the node.  x86 has no PKG where a package spans nodes (SNC,
#    NPS; hwloc has a Group for each node in the Package): NODE, the
#    node's span, is the level above MC there.
# The cache a pair loses is the largest data or unified cache above a's
# PU that does not hold b (none between SMT siblings).  Checked: each
# level's pair crosses that level; it loses that cache, level and size;
# the levels are the distinct crossings among the twin's CPUs, none
# missing or invented.
#
# With --matrix the twin takes every pair a < b of its CPUs as a level of
# its own, timed both ways.  Checked: the pairs are every pair of the
# CPUs, each once, in order; each pair's level is its crossing; its cache
# the larger of the two that a loses to b and b to a, by the twin's rule:
# a's, unless b's is strictly larger (same size, other level: a's), none
# between SMT siblings.  Two trees where the two differ: a hybrid part,
# and packages whose largest caches are of one size but not one level.
# Each checker is also run on a doctored copy of the twin's JSON, which it
# must reject.
#
# The twin's CPUs are on this host those it may run on
# (sched_getaffinity()), as the kernel's are its housekeeping CPUs; on a
# fake tree (--sysfs) the tree's cpu/online, more CPUs than this host has.
# It cannot move to a CPU the host lacks (such a level's or pair's state
# says so: buffer allocation failed, a CPU went offline), but levels,
# pairs and caches are chosen before it measures.
. "$(dirname "$0")/lib.sh"
native_twin
D=$BUILD/logs/hwloc
rm -rf "$D" && mkdir -p "$D"

# fails WHY COMMAND...: COMMAND (a checker) failed, saying WHY and nothing
# else: not for another reason, a crash.
fails() {
	why=$1; shift
	! out=$("$@" 2>&1) && [ "$out" = "$why" ] || { echo "$out"; return 1; }
}

# hwloc_agrees WHAT XML JSON CPUS: the twin's JSON agrees with lstopo's XML
# on WHAT (pairs, caches or levels, as above; of --matrix's JSON:
# matrix-pairs, matrix-levels or matrix-caches) for CPUS ("0-15", or
# "self": those this process may run on); WHAT "show" prints the JSON's
# pairs, caches and levels, "matrix-show" its number of pairs, their
# levels and their caches, a line each.  Prints each disagreement.
hwloc_agrees() {
	python3 -c '
import json, os, platform, sys
import xml.etree.ElementTree as ET
what, xml, js, cpus = sys.argv[1:5]
doc = json.load(open(js))
levels = doc["runs"][0]["levels"] if "runs" in doc else []
pairs = doc.get("pairs", [])
if cpus == "self":
    cpus = sorted(os.sched_getaffinity(0))
else:
    cpus = list(range(int(cpus.split("-")[0]), int(cpus.split("-")[1]) + 1))
order = ["SMT", "CLS", "MC", "PKG", "NODE", "NUMA"] + ["NUMA%d" % k for k in range(2, 64)]

def cache(level, size):
    if not size:
        return "none"
    return "L%d %d %s" % ((level, size >> 20, "MiB") if size % (1 << 20) == 0 else
                          (level, size >> 10, "KiB"))

if what == "show":
    print(", ".join("%s %d-%d" % (l["level"], l["src"], l["dst"]) for l in levels))
    print(", ".join("%s %s" % (l["level"], cache(l["cache_level"], l["cache_bytes"]))
                    for l in levels if l["level"] != "SMT"))
    print(" ".join(l["level"] for l in levels))
    sys.exit(0)
if what == "matrix-show":
    count = {}
    for p in pairs:
        k = p["level"], p["cache_level"], p["cache_bytes"]
        count[k] = count.get(k, 0) + 1
    keys = sorted(count, key=lambda k: (order.index(k[0]) if k[0] in order else 99, k[2], k[1]))
    by_level = {}
    for k in keys:
        by_level[k[0]] = by_level.get(k[0], 0) + count[k]
    print("%d" % len(pairs))
    print(", ".join("%s %d" % (l, n) for l, n in by_level.items()))
    print(", ".join("%s %s x%d" % (k[0], cache(k[1], k[2]), count[k]) for k in keys))
    sys.exit(0)

def mask(o):        # "0x0000000f,0xffffffff": 32-bit words, the high one first
    v = 0
    for w in o.get("cpuset").split(","):
        v = v << 32 | int(w, 16)
    return v

top = ET.parse(xml).getroot()
up, pu, node, dist = {}, {}, {}, {}
for o in top.iter("object"):
    for c in o.findall("object"):
        up[c] = o
    if o.get("type") == "PU":
        pu[int(o.get("os_index"))] = o
    elif o.get("type") == "NUMANode" and mask(o):
        node[int(o.get("os_index"))] = mask(o)
for d in top.iter("distances2"):
    if d.get("name") == "NUMALatency" and d.get("indexing") == "os":
        # Long lists come in several elements.
        idx = [int(i) for e in d.findall("indexes") for i in e.text.split()]
        val = [int(v) for e in d.findall("u64values") for v in e.text.split()]
        for i, a in enumerate(idx):
            for j, b in enumerate(idx):
                dist[a, b] = val[i * len(idx) + j]
missing = [c for c in cpus if c not in pu]
if missing:
    sys.exit("CPUs %s: no PU in hwloc" % missing)
ranks = sorted({dist.get((a, b), 10) for a in node for b in node})

def above(a):       # the objects above a PU, lowest first
    o, out = pu[a], []
    while o in up:
        o = up[o]
        out.append(o)
    return out

def is_cache(o):    # cache_type 0 unified, 1 data, 2 instruction
    return o.get("cache_type") in ("0", "1")

def node_of(a):
    return next(n for n in node if node[n] >> a & 1)

packages = [mask(o) for o in top.iter("object") if o.get("type") == "Package"]
no_pkg = platform.machine() in ("x86_64", "i686") and any(
    bin(p).count("1") > bin(node[node_of(c)]).count("1")
    for p in packages for c in cpus if p >> c & 1)

def crossing(a, b):
    na, nb = node_of(a), node_of(b)
    if na != nb:
        k = ranks.index(dist[na, nb])
        return ("NODE", "NUMA")[k] if k < 2 else "NUMA%d" % k
    holds = [o for o in above(a) if mask(o) >> b & 1]
    if any(o.get("type") == "Core" for o in holds):
        return "SMT"
    if any(o.get("subtype") == "Cluster" for o in holds):
        return "CLS"
    if any(is_cache(o) for o in holds):
        return "MC"
    return "NODE" if no_pkg else "PKG"

def lost(a, b):
    level, size = 0, 0
    for o in above(a):
        if is_cache(o) and not mask(o) >> b & 1 and int(o.get("cache_size")) > size:
            level, size = int(o.get("depth")), int(o.get("cache_size"))
    return level, size

def pair_lost(a, b):    # a < b: what a loses to b, or b to a if strictly larger
    if crossing(a, b) == "SMT":
        return 0, 0
    there, back = lost(a, b), lost(b, a)
    return back if back[1] > there[1] else there

def pair_name(p):
    return "CPU %d <-> %d" % (p[0], p[1])

bad = 0
for l in levels if what != "levels" else []:
    a, b = l["src"], l["dst"]
    if what == "pairs" and crossing(a, b) != l["level"]:
        print("%s: CPU %d <-> %d crosses %s in hwloc" % (l["level"], a, b, crossing(a, b)))
        bad += 1
    if what == "caches" and lost(a, b) != (l["cache_level"], l["cache_bytes"]):
        print("%s: CPU %d <-> %d loses %s, in hwloc %s" % (l["level"], a, b,
              cache(l["cache_level"], l["cache_bytes"]), cache(*lost(a, b))))
        bad += 1
if what == "matrix-pairs":
    want = [(a, b) for a in cpus for b in cpus if a < b]
    got = [(p["src"], p["dst"]) for p in pairs]
    if got != want:
        missing = [p for p in want if p not in set(got)]
        extra = [p for p in got if p not in set(want)]
        for what_, some in ("missing", missing), ("not a pair of the CPUs", extra):
            if some:
                print("pairs: %s: %s%s" % (what_, ", ".join(map(pair_name, some[:5])),
                                           " and %d more" % (len(some) - 5) if len(some) > 5 else ""))
        if not missing and not extra:
            print("pairs: %d, every pair of the CPUs but repeated or out of order" % len(got))
        bad += 1
for p in pairs if what in ("matrix-levels", "matrix-caches") else []:
    a, b = p["src"], p["dst"]
    if a not in pu or b not in pu:
        print("CPU %d <-> %d: no PU in hwloc" % (a, b))
        bad += 1
    elif what == "matrix-levels" and crossing(a, b) != p["level"]:
        print("CPU %d <-> %d: %s, crosses %s in hwloc" % (a, b, p["level"], crossing(a, b)))
        bad += 1
    elif what == "matrix-caches" and pair_lost(a, b) != (p["cache_level"], p["cache_bytes"]):
        print("CPU %d <-> %d (%s): loses %s, in hwloc %s (CPU %d loses %s, CPU %d %s)" % (
              a, b, p["level"], cache(p["cache_level"], p["cache_bytes"]),
              cache(*pair_lost(a, b)), a, cache(*lost(a, b)), b, cache(*lost(b, a))))
        bad += 1
    elif what == "matrix-caches":
        smt = "skipped: SMT siblings share their caches"
        for r in p["by_run"]:
            head = "CPU %d <-> %d (%s, %s): run %d" % (
                a, b, p["level"], cache(p["cache_level"], p["cache_bytes"]), r["run"])
            if ((r["src"], r["dst"], r["cache_level"], r["cache_bytes"]) !=
                    (a, b, p["cache_level"], p["cache_bytes"])):
                print("%s is CPU %d <-> %d, %s" % (head, r["src"], r["dst"],
                                                   cache(r["cache_level"], r["cache_bytes"])))
                bad += 1
            elif (r["state"] == smt) != (p["level"] == "SMT"):
                print("%s: %s" % (head, r["state"]))
                bad += 1
if what == "levels":
    want = sorted({crossing(a, b) for a in cpus for b in cpus if a != b}, key=order.index)
    got = [l["level"] for l in levels]
    if got != want:
        print("levels %s, crossings in hwloc %s" % (" ".join(got), " ".join(want)))
        bad += 1
sys.exit(bad > 0)
' "$@"
}

# compare NAME NR_CPUS: lstopo and the twin on the fake tree $D/NAME (a
# root), whose CPUs are 0 to NR_CPUS - 1, or on this host where NR_CPUS is
# "self", then the three checks of its levels, and the three of its
# --matrix (in NAME-matrix.json; a pair's measurement is cut to 1 ms, and
# fails on a CPU this host lacks: exit status 0 or 4, some pair measured
# or none).
compare() {
	sysfs=
	if [ "$2" = self ]; then
		HWLOC_DONT_MERGE_CLUSTER_GROUPS=1 lstopo-no-graphics --of xml > "$D/$1.xml"
		cpus=self
	else
		HWLOC_FSROOT=$D/$1 HWLOC_COMPONENTS=linux,stop HWLOC_DONT_MERGE_CLUSTER_GROUPS=1 \
			lstopo-no-graphics --of xml > "$D/$1.xml"
		sysfs=--sysfs=$D/$1/sys/devices/system
		cpus=0-$(($2 - 1))
	fi
	"$TWIN" ${sysfs:+"$sysfs"} --format=json --budget-ms=100 --max-cache-size=65536 > "$D/$1.json"
	show=$(hwloc_agrees show "$D/$1.xml" "$D/$1.json" "$cpus")
	where=$([ "$cpus" = self ] && echo "the CPUs it may run on" || echo "CPUs $cpus")
	check "$1: each level's pair crosses it in hwloc ($(echo "$show" | sed -n 1p))" \
		hwloc_agrees pairs "$D/$1.xml" "$D/$1.json" "$cpus"
	check "$1: and loses hwloc's cache ($(echo "$show" | sed -n 2p))" \
		hwloc_agrees caches "$D/$1.xml" "$D/$1.json" "$cpus"
	check "$1: the levels are hwloc's crossings among $where ($(echo "$show" | sed -n 3p))" \
		hwloc_agrees levels "$D/$1.xml" "$D/$1.json" "$cpus"

	rc=0
	"$TWIN" ${sysfs:+"$sysfs"} --matrix --format=json --budget-ms=1 --max-cache-size=65536 \
		> "$D/$1-matrix.json" 2> "$D/$1-matrix.err" || rc=$?
	if [ "$rc" != 0 ] && [ "$rc" != 4 ]; then
		not_ok "$1: --matrix exited $rc"
		sed 's/^/  /' "$D/$1-matrix.err"
		return
	fi
	show=$(hwloc_agrees matrix-show "$D/$1.xml" "$D/$1-matrix.json" "$cpus")
	say "# $T: $1: --matrix took $(sed -n 's/^  "delay_ms": \([0-9]*\)$/\1/p' \
		"$D/$1-matrix.json") ms, exit status $rc ($(sed -n 's/^migration_cost: \(.* CPU pairs, .*\)/\1/p' \
		"$D/$1-matrix.err"))"
	check "$1: --matrix: its pairs are every pair of $where, each once, in order ($(echo "$show" | sed -n 1p))" \
		hwloc_agrees matrix-pairs "$D/$1.xml" "$D/$1-matrix.json" "$cpus"
	check "$1: --matrix: each pair's level is its crossing in hwloc ($(echo "$show" | sed -n 2p))" \
		hwloc_agrees matrix-levels "$D/$1.xml" "$D/$1-matrix.json" "$cpus"
	check "$1: --matrix: each pair's cache, and its runs', the larger either CPU loses in hwloc ($(echo "$show" | sed -n 3p))" \
		hwloc_agrees matrix-caches "$D/$1.xml" "$D/$1-matrix.json" "$cpus"
}

if ! command -v lstopo-no-graphics >/dev/null; then
	not_ok "no lstopo-no-graphics: make deps installs hwloc-nox"
	finish
fi
compare host self
S=sys/devices/system
# Two CPUs, each its own node, one package each or one over both, and a
# memory-only node (host.sh's trees).
fake_sysfs "$D/two-packages/$S" 1
compare two-packages 2
fake_sysfs "$D/two-nodes-one-package/$S" 0
compare two-nodes-one-package 2
# The numa shape: SMT 2, L3 of 4 CPUs, 2 packages of 8, a node each.
fake_topo "$D/numa/$S" 16 2 0 2 4 8 8 21
compare numa 16
# AMD: an L3 for each CCX of 4 cores, half of its package.
fake_topo "$D/ccx/$S" 16 2 0 2 8 16 16 0
compare ccx 16
# Sub-NUMA clustering: 2 packages of 2 nodes, each with 2 L3s; then with
# an L3 over the package, as Skylake-SP's sysfs has it.
fake_topo "$D/snc/$S" 32 2 0 2 4 16 8 'a / 2 == b / 2 ? 12 : 21'
compare snc 32
fake_topo "$D/snc-package-l3/$S" 32 2 0 2 16 16 8 'a / 2 == b / 2 ? 12 : 21'
compare snc-package-l3 32
# arm64 (Kunpeng 920): clusters of 4 cores, each core its L2, an L3 of 8.
fake_topo "$D/cluster/$S" 16 1 4 1 8 16 16 0
compare cluster 16
# Clusters that share the L2 (Intel's E-core modules).
fake_topo "$D/l2-cluster/$S" 16 1 4 4 8 16 16 0
compare l2-cluster 16
# Hybrid (Alder Lake): 8 P-cores, each its L2 (1 MiB), and 8 E-cores in
# modules of 4, each module a cluster with an L2 (2 MiB); an L3 over all.
# A P-core loses its L2 to an E-core, which loses its larger L2.
fake_topo "$D/hybrid/$S" 16 1 1 1 16 16 16 0
for c in 8 9 10 11 12 13 14 15; do
	fake_set "$D/hybrid/$S/cpu/cpu$c/topology/cluster_cpus" $((c / 4 * 4)) 4
	fake_cache "$D/hybrid/$S/cpu/cpu$c/cache/index2" Unified 2 2048K $((c / 4 * 4)) 4
done
compare hybrid 16
# Two packages of 2 CPUs with an L3 (4 MiB) each, package 0's CPUs with
# an L2 of that size too: across the packages CPU 0 or 1 loses its L2
# (the first of its two largest caches), CPU 2 or 3 its L3, as large; the
# pair, the first CPU's L2.
fake_topo "$D/same-size/$S" 4 1 0 1 2 2 4 0
for c in 0 1; do
	fake_cache "$D/same-size/$S/cpu/cpu$c/cache/index2" Unified 2 4096K $c 1
done
compare same-size 4

# Doctored copies of the numa tree's JSON, which each checker must reject.
J=$D/numa.json
sed '/"level": "PKG"/s/"dst": [0-9]*/"dst": 8/' "$J" > "$D/doctored-pair.json"
check "doctored: the pair checker rejects a PKG pair in two nodes" \
	fails "PKG: CPU 2 <-> 8 crosses NUMA in hwloc" \
	hwloc_agrees pairs "$D/numa.xml" "$D/doctored-pair.json" 0-15
sed '/"level": "MC"/s/"cache_bytes": [0-9]*/"cache_bytes": 2097152/' "$J" > "$D/doctored-cache.json"
check "doctored: the cache checker rejects an MC that loses 2 MiB" \
	fails "MC: CPU 4 <-> 6 loses L2 2 MiB, in hwloc L2 1 MiB" \
	hwloc_agrees caches "$D/numa.xml" "$D/doctored-cache.json" 0-15
sed '/"level": "PKG"/d' "$J" > "$D/doctored-missing.json"
check "doctored: the level checker rejects a level missing (PKG)" \
	fails "levels SMT MC NUMA, crossings in hwloc SMT MC PKG NUMA" \
	hwloc_agrees levels "$D/numa.xml" "$D/doctored-missing.json" 0-15
sed '/"level": "PKG", "src"/{p;s/"PKG"/"NODE"/}' "$J" > "$D/doctored-invented.json"
check "doctored: and a level invented (NODE)" \
	fails "levels SMT MC PKG NODE NUMA, crossings in hwloc SMT MC PKG NUMA" \
	hwloc_agrees levels "$D/numa.xml" "$D/doctored-invented.json" 0-15

# Doctored copies of --matrix's JSON: a pair left out, a pair of a CPU the
# tree lacks, a pair's level, its cache, a run's cache, an SMT pair's run
# not skipped; a hybrid pair that loses the smaller of its caches (only
# the P-core's), a pair of the same-size tree that loses the other of two
# caches of one size (the second CPU's, of the higher level).
J=$D/numa-matrix.json
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); del d["pairs"][5]
json.dump(d, sys.stdout)' "$J" > "$D/doctored-matrix-missing.json"
check "doctored: the matrix's pair checker rejects a pair left out" \
	fails "pairs: missing: CPU 0 <-> 6" \
	hwloc_agrees matrix-pairs "$D/numa.xml" "$D/doctored-matrix-missing.json" 0-15
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); p = dict(d["pairs"][14])
p["dst"] = 16; d["pairs"].insert(15, p); json.dump(d, sys.stdout)' "$J" > "$D/doctored-matrix-extra.json"
check "doctored: and a pair of a CPU the tree lacks" \
	fails "pairs: not a pair of the CPUs: CPU 0 <-> 16" \
	hwloc_agrees matrix-pairs "$D/numa.xml" "$D/doctored-matrix-extra.json" 0-15
sed '/"src": 0, "dst": 8, "level"/s/"level": "NUMA"/"level": "PKG"/' "$J" > "$D/doctored-matrix-level.json"
check "doctored: the matrix's level checker rejects a pair across nodes called PKG" \
	fails "CPU 0 <-> 8: PKG, crosses NUMA in hwloc" \
	hwloc_agrees matrix-levels "$D/numa.xml" "$D/doctored-matrix-level.json" 0-15
sed '/"src": 4, "dst": 6, "level"/s/"cache_bytes": [0-9]*/"cache_bytes": 2097152/' "$J" > "$D/doctored-matrix-cache.json"
check "doctored: the matrix's cache checker rejects an MC pair that loses 2 MiB" \
	fails "CPU 4 <-> 6 (MC): loses L2 2 MiB, in hwloc L2 1 MiB (CPU 4 loses L2 1 MiB, CPU 6 L2 1 MiB)" \
	hwloc_agrees matrix-caches "$D/numa.xml" "$D/doctored-matrix-cache.json" 0-15
sed '/"run": 1, "src": 4, "dst": 6,/s/"cache_bytes": [0-9]*/"cache_bytes": 2097152/' "$J" \
	> "$D/doctored-matrix-run-cache.json"
check "doctored: and a run of an MC pair that loses 2 MiB" \
	fails "CPU 4 <-> 6 (MC, L2 1 MiB): run 1 is CPU 4 <-> 6, L2 2 MiB" \
	hwloc_agrees matrix-caches "$D/numa.xml" "$D/doctored-matrix-run-cache.json" 0-15
sed '/"run": 1, "src": 0, "dst": 1,/s/"state": "[^"]*"/"state": "measured"/' "$J" \
	> "$D/doctored-matrix-run-smt.json"
check "doctored: and a run of an SMT pair that is not skipped" \
	fails "CPU 0 <-> 1 (SMT, none): run 1: measured" \
	hwloc_agrees matrix-caches "$D/numa.xml" "$D/doctored-matrix-run-smt.json" 0-15
sed '/"src": 0, "dst": 8, "level"/s/"cache_bytes": [0-9]*/"cache_bytes": 1048576/' \
	"$D/hybrid-matrix.json" > "$D/doctored-matrix-smaller.json"
check "doctored: and a hybrid pair that loses the P-core's L2, the smaller" \
	fails "CPU 0 <-> 8 (MC): loses L2 1 MiB, in hwloc L2 2 MiB (CPU 0 loses L2 1 MiB, CPU 8 L2 2 MiB)" \
	hwloc_agrees matrix-caches "$D/hybrid.xml" "$D/doctored-matrix-smaller.json" 0-15
sed '/"src": 0, "dst": 2, "level"/s/"cache_level": [0-9]*/"cache_level": 3/' \
	"$D/same-size-matrix.json" > "$D/doctored-matrix-same-size.json"
check "doctored: and a pair that loses the second CPU's cache of the same size" \
	fails "CPU 0 <-> 2 (PKG): loses L3 4 MiB, in hwloc L2 4 MiB (CPU 0 loses L2 4 MiB, CPU 2 L3 4 MiB)" \
	hwloc_agrees matrix-caches "$D/same-size.xml" "$D/doctored-matrix-same-size.json" 0-3
finish
