// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof reader: call sites to file:line through DWARF, with elfutils'
 * libdwfl. A site "sym+0xoff/0xlen [module]" is looked up in the module's
 * .ko, or in vmlinux for the kernel proper: the symbol of that name and
 * size (static functions of one name in several files differ in size more
 * often than not), plus the offset, less one byte because a call site is
 * a return address and the call is the instruction before it. The line
 * table gives the innermost line there, inlined code included, as
 * allocinfo names it: the path relative to the build's directory.
 *
 * .ko files are relocatable objects; dwfl_report_offline() lays their
 * sections out and applies the DWARF relocations. allocinfo's sites are
 * file:line already and are left alone.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "output.h"
#include "profile.h"

#ifndef KP_HAVE_DW

int kp_resolve(struct kp_profile *p, const char *spec, char *err,
	       size_t errlen)
{
	(void)p;
	(void)spec;
	snprintf(err, errlen, "built without libdw (--resolve)");
	return -ENOTSUP;
}

#else

#include <elfutils/libdwfl.h>

struct rsym {
	const char *name;	/* owned by the Dwfl */
	GElf_Addr addr;
	GElf_Word size;
};

struct elf_file {
	char *path;
	char *name;		/* module name ("-" as "_"); NULL: vmlinux */
	Dwfl *dwfl;
	Dwfl_Module *mod;
	struct rsym *syms;	/* functions, by name */
	size_t nsyms;
	bool has_lines;
};

static const Dwfl_Callbacks callbacks = {
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

static int cmp_rsym(const void *a, const void *b)
{
	const struct rsym *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->size < y->size ? -1 : x->size > y->size;
}

/* "dir/kmemprof-hog.ko.xz" -> "kmemprof_hog" */
static char *module_name(const char *path)
{
	const char *base = strrchr(path, '/');
	char *name, *c;

	name = strdup(base ? base + 1 : path);
	if (!name)
		return NULL;
	c = strstr(name, ".ko");
	if (c)
		*c = '\0';
	for (c = name; *c; c++)
		if (*c == '-')
			*c = '_';
	return name;
}

static int elf_open(struct elf_file *f, char *err, size_t errlen)
{
	int i, n, fd;

	fd = open(f->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open %s: %s", f->path,
			 strerror(errno));
		return -errno;
	}
	f->dwfl = dwfl_begin(&callbacks);
	if (!f->dwfl) {
		close(fd);
		snprintf(err, errlen, "%s: %s", f->path,
			 dwfl_errmsg(-1));
		return -ENOMEM;
	}
	/* The Dwfl owns @fd from here. */
	f->mod = dwfl_report_offline(f->dwfl, f->name ? f->name : "kernel",
				     f->path, fd);
	if (!f->mod || dwfl_report_end(f->dwfl, NULL, NULL)) {
		snprintf(err, errlen, "%s: %s", f->path,
			 dwfl_errmsg(-1));
		return -EINVAL;
	}
	n = dwfl_module_getsymtab(f->mod);
	if (n <= 0) {
		snprintf(err, errlen, "%s: no symbol table", f->path);
		return -EINVAL;
	}
	f->syms = calloc(n, sizeof(*f->syms));
	if (!f->syms)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		const char *name = dwfl_module_getsym_info(f->mod, i, &sym,
							   &addr, NULL, NULL,
							   NULL);

		if (!name || !*name || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    sym.st_shndx == SHN_UNDEF)
			continue;
		f->syms[f->nsyms].name = name;
		f->syms[f->nsyms].addr = addr;
		f->syms[f->nsyms].size = sym.st_size;
		f->nsyms++;
	}
	qsort(f->syms, f->nsyms, sizeof(*f->syms), cmp_rsym);
	return 0;
}

static void elf_close(struct elf_file *f)
{
	if (f->dwfl)
		dwfl_end(f->dwfl);
	free(f->syms);
	free(f->path);
	free(f->name);
	memset(f, 0, sizeof(*f));
}

/* "sym+0x1c/0x80" -> sym, off, len; false if it is not of that form. */
static bool split_site(const char *site, char *sym, size_t symlen,
		       uint64_t *off, uint64_t *len)
{
	const char *plus = strrchr(site, '+');
	char *end;

	if (!plus || plus == site || (size_t)(plus - site) >= symlen ||
	    strncmp(plus + 1, "0x", 2))
		return false;
	*off = strtoull(plus + 1, &end, 16);
	if (*end != '/')
		return false;
	*len = strtoull(end + 1, &end, 16);
	if (*end && *end != ' ' && *end != '[')
		return false;
	memcpy(sym, site, plus - site);
	sym[plus - site] = '\0';
	return true;
}

static const struct rsym *find_sym(const struct elf_file *f, const char *name,
				   uint64_t len)
{
	struct rsym key = { .name = name, .size = len };
	const struct rsym *s;
	size_t lo = 0, hi = f->nsyms, mid;

	s = bsearch(&key, f->syms, f->nsyms, sizeof(*s), cmp_rsym);
	if (s)
		return s;
	/* No symbol of that size: the only one of that name, if one. */
	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (strcmp(f->syms[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < f->nsyms && !strcmp(f->syms[lo].name, name) &&
	    (lo + 1 == f->nsyms || strcmp(f->syms[lo + 1].name, name)))
		return &f->syms[lo];
	return NULL;
}

/* file:line of @site in @f, into @buf; false if unknown. */
static bool lookup(struct elf_file *f, const char *site, char *buf,
		   size_t buflen)
{
	char sym[256];
	const struct rsym *s;
	const char *file, *dir;
	uint64_t off, len;
	Dwfl_Line *line;
	Dwarf_Addr addr;
	size_t dlen;
	int lineno;

	if (!split_site(site, sym, sizeof(sym), &off, &len))
		return false;
	s = find_sym(f, sym, len);
	if (!s || (s->size && off > s->size))
		return false;
	addr = s->addr + off - (off ? 1 : 0);
	line = dwfl_module_getsrc(f->mod, addr);
	if (!line)
		return false;
	f->has_lines = true;
	file = dwfl_lineinfo(line, &addr, &lineno, NULL, NULL, NULL);
	if (!file || lineno <= 0)
		return false;
	dir = dwfl_line_comp_dir(line);
	dlen = dir ? strlen(dir) : 0;
	if (dlen && !strncmp(file, dir, dlen) && file[dlen] == '/')
		file += dlen + 1;
	while (!strncmp(file, "./", 2))
		file += 2;
	snprintf(buf, buflen, "%s:%d", file, lineno);
	return true;
}

/* Module files under the release's module trees, found by walking. */
static struct {
	const struct kp_profile *p;
	struct elf_file *files;
	size_t n, cap;
} walk;

static bool wanted(const char *name)
{
	size_t i;

	for (i = 0; i < walk.n; i++)
		if (walk.files[i].name && !strcmp(walk.files[i].name, name))
			return false;	/* have one already */
	for (i = 0; i < walk.p->n; i++)
		if (walk.p->sites[i].module &&
		    !strcmp(walk.p->sites[i].module, name))
			return true;
	return false;
}

static int add_file(struct elf_file **v, size_t *n, size_t *cap,
		    const char *path, bool vmlinux)
{
	struct elf_file *f;

	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 16;

		f = realloc(*v, c * sizeof(*f));
		if (!f)
			return -ENOMEM;
		*v = f;
		*cap = c;
	}
	f = &(*v)[*n];
	memset(f, 0, sizeof(*f));
	f->path = strdup(path);
	f->name = vmlinux ? NULL : module_name(path);
	if (!f->path || (!vmlinux && !f->name)) {
		free(f->path);
		free(f->name);
		return -ENOMEM;
	}
	(*n)++;
	return 0;
}

static int walk_one(const char *path, const struct stat *st, int type,
		    struct FTW *ftw)
{
	char *name;
	int ret = 0;

	(void)st;
	(void)ftw;
	if (type != FTW_F || !strstr(path, ".ko"))
		return 0;
	name = module_name(path);
	if (!name)
		return -1;
	if (wanted(name))
		ret = add_file(&walk.files, &walk.n, &walk.cap, path, false);
	free(name);
	return ret ? -1 : 0;
}

/* The files to read: @spec's, or the running kernel's debug files. */
static int files_of(struct kp_profile *p, const char *spec,
		    struct elf_file **files, size_t *n, char *err,
		    size_t errlen)
{
	char path[512], *copy, *tok, *save = NULL;
	struct utsname u;
	size_t cap = 0;
	int ret = 0;

	*files = NULL;
	*n = 0;
	if (spec) {
		copy = strdup(spec);
		if (!copy)
			return -ENOMEM;
		for (tok = strtok_r(copy, ",", &save); tok && !ret;
		     tok = strtok_r(NULL, ",", &save)) {
			if (access(tok, R_OK)) {
				ret = -errno;
				snprintf(err, errlen, "cannot read %s: %s", tok,
					 strerror(errno));
				break;
			}
			ret = add_file(files, n, &cap, tok,
				       tok == copy && !strstr(tok, ".ko"));
		}
		free(copy);
		return ret;
	}
	if (uname(&u))
		return -errno;
	snprintf(path, sizeof(path), "/usr/lib/debug/boot/vmlinux-%s",
		 u.release);
	if (access(path, R_OK))
		snprintf(path, sizeof(path),
			 "/usr/lib/debug/lib/modules/%s/vmlinux", u.release);
	if (access(path, R_OK))
		snprintf(path, sizeof(path), "/boot/vmlinux-%s", u.release);
	if (!access(path, R_OK))
		ret = add_file(files, n, &cap, path, true);
	walk.p = p;
	walk.files = *files;
	walk.n = *n;
	walk.cap = cap;
	snprintf(path, sizeof(path), "/usr/lib/debug/lib/modules/%s",
		 u.release);
	if (!ret && !access(path, R_OK) && nftw(path, walk_one, 16, FTW_PHYS))
		ret = -ENOMEM;
	snprintf(path, sizeof(path), "/lib/modules/%s", u.release);
	if (!ret && !access(path, R_OK) && nftw(path, walk_one, 16, FTW_PHYS))
		ret = -ENOMEM;
	*files = walk.files;
	*n = walk.n;
	if (!ret && !*n) {
		snprintf(err, errlen, "no vmlinux with "
			 "debug info in /usr/lib/debug/boot/vmlinux-%s, and no "
			 "modules under /lib/modules/%s", u.release, u.release);
		ret = -ENOENT;
	}
	return ret;
}

int kp_resolve(struct kp_profile *p, const char *spec, char *err,
	       size_t errlen)
{
	struct elf_file *files, *f;
	char buf[1024];
	size_t n, i, j, tried;
	int ret, done = 0, opened = 0;

	ret = files_of(p, spec, &files, &n, err, errlen);
	if (ret)
		goto out;
	for (j = 0; j < n; j++) {
		f = &files[j];
		if (elf_open(f, err, errlen)) {
			/* Say why, and go on with the others. */
			fprintf(stderr, "kmemprof: --resolve: %s\n", err);
			continue;
		}
		opened++;
		tried = 0;
		for (i = 0; i < p->n; i++) {
			struct kp_site *s = &p->sites[i];
			char *line;

			if (s->srcline || !strstr(s->site, "+0x") ||
			    (s->module ? !f->name || strcmp(s->module, f->name) :
			     !!f->name))
				continue;
			tried++;
			if (!lookup(f, s->site, buf, sizeof(buf)))
				continue;
			line = strdup(buf);
			if (!line) {
				ret = -ENOMEM;
				goto out;
			}
			s->srcline = line;
			done++;
		}
		if (tried && !f->has_lines)
			fprintf(stderr, "kmemprof: --resolve: %s: no DWARF line "
				"table for its sites (build with "
				"CONFIG_DEBUG_INFO_DWARF5=y, or -g)\n", f->path);
	}
	if (!opened) {
		ret = -ENOENT;
		goto out;
	}
	ret = done;
	err[0] = '\0';
out:
	for (j = 0; j < n; j++)
		elf_close(&files[j]);
	free(files);
	return ret;
}

#endif /* KP_HAVE_DW */
