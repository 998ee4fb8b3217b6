// SPDX-License-Identifier: GPL-2.0
/*
 * padata, the kernel's own answer, two ways:
 *
 *	padata		the parallel step does the work (how pcrypt uses it)
 *	padata-serial	the producer does the work and the parallel step only
 *			calls padata_do_serial(): what is left is padata's
 *			cost of reordering
 *
 * Every item names the same callback CPU: padata keeps the order only
 * among items serialized on one CPU.
 */
#include <linux/cpumask.h>
#include <linux/padata.h>
#include <linux/slab.h>

#include "ordered.h"

struct ob_padata {
	struct padata_instance *pinst;
	struct padata_shell *ps;
	int cb_cpu;
};

static void ob_padata_serial_fn(struct padata_priv *padata)
{
	struct ob_item *item = container_of(padata, struct ob_item, padata);

	ob_serial(item, padata->seq_nr);
}

static void ob_padata_work_fn(struct padata_priv *padata)
{
	struct ob_item *item = container_of(padata, struct ob_item, padata);

	ob_work(item->run, item);
	padata_do_serial(padata);
}

static void ob_padata_reorder_fn(struct padata_priv *padata)
{
	padata_do_serial(padata);
}

static int ob_padata_setup(struct ob_run *run)
{
	struct ob_padata *pd = kzalloc(sizeof(*pd), GFP_KERNEL);

	if (!pd)
		return -ENOMEM;
	pd->pinst = padata_alloc("ordsched_bench");
	if (!pd->pinst)
		goto err_free;
	pd->ps = padata_alloc_shell(pd->pinst);
	if (!pd->ps)
		goto err_free_pinst;
	pd->cb_cpu = cpumask_first(cpu_online_mask);
	run->priv = pd;
	return 0;

err_free_pinst:
	padata_free(pd->pinst);
err_free:
	kfree(pd);
	return -ENOMEM;
}

static void ob_padata_teardown(struct ob_run *run)
{
	struct ob_padata *pd = run->priv;

	/*
	 * The last serial callback can run before padata_reorder(), on the
	 * CPU that queued it, is done with the parallel_data: freeing the
	 * shell at once would free it under padata_reorder()'s feet (seen
	 * as slab corruption on 6.1.192). Wait for padata's workers first.
	 */
	flush_workqueue(pd->pinst->parallel_wq);
	flush_workqueue(pd->pinst->serial_wq);
	padata_free_shell(pd->ps);
	padata_free(pd->pinst);
	kfree(pd);
}

static int ob_padata_start(struct ob_run *run, struct ob_item *item,
			   void (*parallel)(struct padata_priv *padata))
{
	struct ob_padata *pd = run->priv;
	int cb_cpu = pd->cb_cpu;

	item->padata.parallel = parallel;
	item->padata.serial = ob_padata_serial_fn;
	return padata_do_parallel(pd->ps, &item->padata, &cb_cpu);
}

static int ob_padata_produce(struct ob_run *run, struct ob_item *item)
{
	return ob_padata_start(run, item, ob_padata_work_fn);
}

static int ob_padata_serial_produce(struct ob_run *run, struct ob_item *item)
{
	ob_work(run, item);
	return ob_padata_start(run, item, ob_padata_reorder_fn);
}

const struct ob_contender ob_padata = {
	.name = "padata",
	.setup = ob_padata_setup,
	.teardown = ob_padata_teardown,
	.produce = ob_padata_produce,
};

const struct ob_contender ob_padata_serial = {
	.name = "padata-serial",
	.setup = ob_padata_setup,
	.teardown = ob_padata_teardown,
	.produce = ob_padata_serial_produce,
};
