// SPDX-License-Identifier: GPL-2.0
/*
 * A test load for owners (issue 41, tests/integration/72-owners.sh): a
 * debugfs file whose writes allocate for the process that writes, and
 * free on another write, from whichever process writes that.
 *
 *   echo "alloc ID N M" > /sys/kernel/debug/kmemprof_owner/ctl
 *       N slab objects of @size bytes from owner_kmalloc(), and M pages
 *       (order 0) from owner_pages(), held under ID (a word, up to 15
 *       bytes; at most 16 IDs at once);
 *   echo "free ID" > /sys/kernel/debug/kmemprof_owner/ctl
 *       frees them all;
 *
 * The allocations are made in the write, in the writer's context, so
 * kmemprof charges them to it (owners=task: its thread group; owners=
 * cgroup: its cgroup), and the frees to whoever allocated them. Unload
 * frees whatever is still held.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/gfp.h>
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

static unsigned int size = 256;
module_param(size, uint, 0444);
MODULE_PARM_DESC(size, "Size of each slab object (default: 256)");

#define OWNER_IDS	16
#define OWNER_MAX	100000

struct owner_hold {
	char id[16];
	void **obj;
	struct page **page;
	unsigned int n, m;
};

static struct owner_hold holds[OWNER_IDS];
static DEFINE_MUTEX(owner_lock);
static struct dentry *owner_dir;

static noinline void *owner_kmalloc(void)
{
	return kmalloc(size, GFP_KERNEL);
}

static noinline struct page *owner_pages(void)
{
	return alloc_page(GFP_KERNEL);
}

static void owner_free(struct owner_hold *h)
{
	unsigned int i;

	for (i = 0; i < h->n; i++)
		kfree(h->obj[i]);
	for (i = 0; i < h->m; i++)
		if (h->page[i])
			__free_page(h->page[i]);
	kvfree(h->obj);
	kvfree(h->page);
	memset(h, 0, sizeof(*h));
}

static struct owner_hold *owner_find(const char *id)
{
	unsigned int i;

	for (i = 0; i < OWNER_IDS; i++)
		if (holds[i].id[0] && !strcmp(holds[i].id, id))
			return &holds[i];
	return NULL;
}

static int owner_alloc(const char *id, unsigned int n, unsigned int m)
{
	struct owner_hold *h = owner_find(id);
	unsigned int i;

	if (h || n > OWNER_MAX || m > OWNER_MAX)
		return -EINVAL;
	for (i = 0; i < OWNER_IDS && holds[i].id[0]; i++)
		;
	if (i == OWNER_IDS)
		return -ENOSPC;
	h = &holds[i];
	strscpy(h->id, id, sizeof(h->id));
	h->obj = kvcalloc(max(n, 1U), sizeof(*h->obj), GFP_KERNEL);
	h->page = kvcalloc(max(m, 1U), sizeof(*h->page), GFP_KERNEL);
	if (!h->obj || !h->page) {
		owner_free(h);
		return -ENOMEM;
	}
	for (; h->n < n; h->n++) {
		h->obj[h->n] = owner_kmalloc();
		if (!h->obj[h->n])
			goto nomem;
	}
	for (; h->m < m; h->m++) {
		h->page[h->m] = owner_pages();
		if (!h->page[h->m])
			goto nomem;
	}
	return 0;
nomem:
	owner_free(h);
	return -ENOMEM;
}

static ssize_t owner_write(struct file *file, const char __user *ubuf,
			   size_t len, loff_t *ppos)
{
	char buf[64], id[16];
	unsigned int n, m;
	int ret;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	mutex_lock(&owner_lock);
	if (sscanf(buf, "alloc %15s %u %u", id, &n, &m) == 3) {
		ret = owner_alloc(id, n, m);
	} else if (sscanf(buf, "free %15s", id) == 1) {
		struct owner_hold *h = owner_find(id);

		ret = h ? 0 : -ENOENT;
		if (h)
			owner_free(h);
	} else {
		ret = -EINVAL;
	}
	mutex_unlock(&owner_lock);
	return ret ? ret : len;
}

static const struct file_operations owner_fops = {
	.owner = THIS_MODULE,
	.write = owner_write,
};

static int __init owner_init(void)
{
	owner_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("ctl", 0200, owner_dir, NULL, &owner_fops);
	return 0;
}

static void __exit owner_exit(void)
{
	unsigned int i;

	debugfs_remove_recursive(owner_dir);
	for (i = 0; i < OWNER_IDS; i++)
		if (holds[i].id[0])
			owner_free(&holds[i]);
}

module_init(owner_init);
module_exit(owner_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kmemprof test load: allocations for the writing process");
