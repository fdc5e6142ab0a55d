#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A malformed migration_cost=, in either form or both mixed, gets one
# warning naming the parameter; every level keeps the default and the boot
# completes.  One boot per way the parser refuses a value (not a number,
# empty, too many values, out of range, a named level malformed, both forms
# mixed, a level named twice): the KUnit suite sched_topology
# (migration_cost_parse_test) gives the parser every other malformed value.
# A malformed one after a valid one keeps the valid one.
. "$(dirname "$0")/lib.sh"
i=0
for value in abc "" 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17 99999999999 \
	     MC: 200,MC:300 MC:200,MC:300; do
	i=$((i + 1))
	boot "bad$i" ht "sched_verbose migration_cost=$value" 'sched-domains' || continue
	check "'$value': one warning" [ "$(count "migration_cost=.*: .*using migration_cost_ns at every level")" = 1 ]
	check "'$value': defaults on every level" domains_are "SMT=0 MC=0"
done

# A malformed one after a valid one changes nothing: the first stays in
# force, and the warning says so instead of promising the default.
if boot repeated ht "sched_verbose migration_cost=MC:300 migration_cost=MC:abc" 'sched-domains'; then
	check "repeated: the warning keeps the first" \
		[ "$(count '\] migration_cost=MC:abc: .*; keeping the migration_cost= before it$')" = 1 ]
	check "repeated: the first one's values" domains_are "SMT=0 MC=300000"
fi
finish
