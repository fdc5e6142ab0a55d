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
# missing or invented.  Each checker is also run on a doctored copy of the
# twin's JSON, which it must reject.
#
# The twin's CPUs are those it may run on (sched_getaffinity()), as the
# kernel's are its housekeeping CPUs; a fake tree has more CPUs than this
# host, so a preloaded sched_getaffinity() gives it the tree's.  It cannot
# move to a CPU the host lacks (such a level's state says so: buffer
# allocation failed, a CPU went offline), but levels, pairs and caches are
# chosen before it measures.
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
# on WHAT (pairs, caches or levels, as above) for CPUS ("0-15", or "self":
# those this process may run on); WHAT "show" prints the JSON's pairs,
# caches and levels, a line each.  Prints each disagreement.
hwloc_agrees() {
	python3 -c '
import json, os, platform, sys
import xml.etree.ElementTree as ET
what, xml, js, cpus = sys.argv[1:5]
levels = json.load(open(js))["runs"][0]["levels"]
if cpus == "self":
    cpus = sorted(os.sched_getaffinity(0))
else:
    cpus = range(int(cpus.split("-")[0]), int(cpus.split("-")[1]) + 1)

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
if what == "levels":
    order = ["SMT", "CLS", "MC", "PKG", "NODE", "NUMA"] + ["NUMA%d" % k for k in range(2, 64)]
    want = sorted({crossing(a, b) for a in cpus for b in cpus if a != b}, key=order.index)
    got = [l["level"] for l in levels]
    if got != want:
        print("levels %s, crossings in hwloc %s" % (" ".join(got), " ".join(want)))
        bad += 1
sys.exit(bad > 0)
' "$@"
}

# A sched_getaffinity() that gives the CPUs 0 to $FAKE_NR_CPUS - 1.
cat > "$D/affinity.c" <<'EOF'
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>

int sched_getaffinity(pid_t pid, size_t size, cpu_set_t *set)
{
	int cpu, n = atoi(getenv("FAKE_NR_CPUS"));

	CPU_ZERO_S(size, set);
	for (cpu = 0; cpu < n; cpu++)
		CPU_SET_S(cpu, size, set);
	return 0;
}
EOF
gcc -shared -fPIC -O2 -o "$D/affinity.so" "$D/affinity.c" || not_ok "the affinity shim: gcc failed"

# compare NAME NR_CPUS: lstopo and the twin on the fake tree $D/NAME (a
# root), or on this host where NR_CPUS is "self", then the three checks.
compare() {
	if [ "$2" = self ]; then
		HWLOC_DONT_MERGE_CLUSTER_GROUPS=1 lstopo-no-graphics --of xml > "$D/$1.xml"
		"$TWIN" --format=json --budget-ms=100 --max-cache-size=65536 > "$D/$1.json"
		cpus=self
	else
		HWLOC_FSROOT=$D/$1 HWLOC_COMPONENTS=linux,stop HWLOC_DONT_MERGE_CLUSTER_GROUPS=1 \
			lstopo-no-graphics --of xml > "$D/$1.xml"
		FAKE_NR_CPUS=$2 LD_PRELOAD=$D/affinity.so "$TWIN" --sysfs="$D/$1/sys/devices/system" \
			--format=json --budget-ms=100 --max-cache-size=65536 > "$D/$1.json"
		cpus=0-$(($2 - 1))
	fi
	show=$(hwloc_agrees show "$D/$1.xml" "$D/$1.json" "$cpus")
	where=$([ "$cpus" = self ] && echo "the CPUs it may run on" || echo "CPUs $cpus")
	check "$1: each level's pair crosses it in hwloc ($(echo "$show" | sed -n 1p))" \
		hwloc_agrees pairs "$D/$1.xml" "$D/$1.json" "$cpus"
	check "$1: and loses hwloc's cache ($(echo "$show" | sed -n 2p))" \
		hwloc_agrees caches "$D/$1.xml" "$D/$1.json" "$cpus"
	check "$1: the levels are hwloc's crossings among $where ($(echo "$show" | sed -n 3p))" \
		hwloc_agrees levels "$D/$1.xml" "$D/$1.json" "$cpus"
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
finish
