// SPDX-License-Identifier: GPL-2.0
/*
 * report_control: make the kernel print, on purpose, one of the reports
 * that LKDTM cannot provoke, so that tests/debug.sh can show that
 * scripts/boot.sh fails a boot on it (a negative control).
 *
 *   insmod report_control.ko report=lockdep
 *	"WARNING: possible circular locking dependency detected"
 *   insmod report_control.ko report=atomic-sleep
 *	"BUG: sleeping function called from invalid context"
 *   insmod report_control.ko report=leak
 *	"kmemleak: 16 new suspected memory leaks", at the next scan
 *
 * The module then refuses to load: nothing of it stays but the leak.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/preempt.h>
#include <linux/slab.h>
#include <linux/string.h>

static char *report = "";
module_param(report, charp, 0400);
MODULE_PARM_DESC(report, "the report to provoke: lockdep, atomic-sleep or leak");

static DEFINE_MUTEX(report_control_a);
static DEFINE_MUTEX(report_control_b);

/*
 * a then b, later b then a: the order lockdep learnt is inverted.  One task
 * takes both, so nothing can deadlock; lockdep reports it all the same.
 */
static void report_lockdep(void)
{
	mutex_lock(&report_control_a);
	mutex_lock(&report_control_b);
	mutex_unlock(&report_control_b);
	mutex_unlock(&report_control_a);

	mutex_lock(&report_control_b);
	mutex_lock(&report_control_a);
	mutex_unlock(&report_control_a);
	mutex_unlock(&report_control_b);
}

/* A might_sleep() with preemption off: what DEBUG_ATOMIC_SLEEP catches. */
static void report_atomic_sleep(void)
{
	preempt_disable();
	might_sleep();
	preempt_enable();
}

/*
 * Objects that nothing points to once the pointer is overwritten; 16 of
 * them, since a stale copy of a pointer on a stack that kmemleak scans can
 * hide the last few.
 */
static void *report_control_lost;

static void report_leak(void)
{
	int i;

	for (i = 0; i < 16; i++)
		WRITE_ONCE(report_control_lost, kmalloc(64, GFP_KERNEL));
	WRITE_ONCE(report_control_lost, NULL);
}

static int __init report_control_init(void)
{
	if (!strcmp(report, "lockdep"))
		report_lockdep();
	else if (!strcmp(report, "atomic-sleep"))
		report_atomic_sleep();
	else if (!strcmp(report, "leak"))
		report_leak();
	else
		return -EINVAL;
	return -EAGAIN;
}
module_init(report_control_init);

MODULE_DESCRIPTION("Provoke a lockdep or sleeping-in-atomic report on purpose");
MODULE_LICENSE("GPL");
