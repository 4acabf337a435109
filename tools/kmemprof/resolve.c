// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof reader: call sites to file:line through DWARF, with elfutils'
 * libdwfl. A site "sym+0xoff/0xlen [module]" is looked up in the module's
 * .ko, or in vmlinux for the kernel proper: the symbol of that name and
 * size (static functions of one name in several files differ in size more
 * often than not), plus the offset, less one byte because a call site is
 * a return address and the call is the instruction before it. The line
 * table gives the innermost line there, inlined code included, as
 * allocinfo names it: the path relative to the build's directory. The
 * DIEs that hold the address give the function inlined there that the
 * line is in (alloc_thread_stack_node() in copy_process()), allocinfo's
 * func: for the same line.
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

#include "keymap.h"
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

int kp_resolve_auto(struct kp_profile *p)
{
	(void)p;
	return 0;
}

#else

#include <dwarf.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>

struct rsym {
	const char *name;	/* owned by the Dwfl */
	GElf_Addr addr;
	GElf_Word size;
};

/* A file to read: vmlinux (name "") or a module's .ko. */
struct elf_path {
	char path[4096];
	char name[128];		/* module name, "-" as "_"; "" for vmlinux */
};

struct elf_file {
	const struct elf_path *ep;
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
static void module_name(const char *path, char *buf, size_t len)
{
	const char *base = strrchr(path, '/');
	char *c;

	snprintf(buf, len, "%s", base ? base + 1 : path);
	c = strstr(buf, ".ko");
	if (c)
		*c = '\0';
	for (c = buf; *c; c++)
		if (*c == '-')
			*c = '_';
}

/*
 * A module's own name, from its .modinfo ("name=kmemprof_hog"), which
 * 5.x and later modules carry: the file may be named anything. false if
 * it has none (an older module, a compressed file).
 */
static bool modinfo_name(const char *path, char *buf, size_t len)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	bool found = false;
	Elf *e;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (e && !elf_getshdrstrndx(e, &shstrndx)) {
		while (!found && (scn = elf_nextscn(e, scn))) {
			GElf_Shdr sh;
			const char *nm, *p, *end;
			Elf_Data *d;

			if (!gelf_getshdr(scn, &sh))
				break;
			nm = elf_strptr(e, shstrndx, sh.sh_name);
			if (!nm || strcmp(nm, ".modinfo") ||
			    !(d = elf_getdata(scn, NULL)) || !d->d_buf)
				continue;
			for (p = d->d_buf, end = p + d->d_size; p < end;
			     p += strnlen(p, (size_t)(end - p)) + 1)
				if ((size_t)(end - p) > 5 && !strncmp(p, "name=", 5) &&
				    memchr(p, '\0', (size_t)(end - p))) {
					snprintf(buf, len, "%s", p + 5);
					found = *buf;
					break;
				}
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	return found;
}

static int elf_open(struct elf_file *f, char *err, size_t errlen)
{
	const char *path = f->ep->path;
	int i, n, fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open %s: %s", path,
			 strerror(errno));
		return -errno;
	}
	f->dwfl = dwfl_begin(&callbacks);
	if (!f->dwfl) {
		close(fd);
		snprintf(err, errlen, "%s: %s", path, dwfl_errmsg(-1));
		return -ENOMEM;
	}
	/* The Dwfl owns @fd from here. */
	f->mod = dwfl_report_offline(f->dwfl, *f->ep->name ? f->ep->name :
				     "kernel", path, fd);
	if (!f->mod || dwfl_report_end(f->dwfl, NULL, NULL)) {
		snprintf(err, errlen, "%s: %s", path, dwfl_errmsg(-1));
		return -EINVAL;
	}
	n = dwfl_module_getsymtab(f->mod);
	if (n <= 0) {
		snprintf(err, errlen, "%s: no symbol table", path);
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
	f->dwfl = NULL;
	f->syms = NULL;
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

/*
 * A kernel source path as allocinfo prints it: relative to the build's
 * directory @dir, or, for sources outside it (an O= build), from the
 * first top-level kernel directory on. Other paths are kept whole.
 */
static const char *short_path(const char *file, const char *dir)
{
	static const char *const tops[] = {
		"arch", "block", "certs", "crypto", "drivers", "fs", "include",
		"init", "io_uring", "ipc", "kernel", "lib", "mm", "net", "rust",
		"security", "sound", "virt",
	};
	size_t dlen = dir ? strlen(dir) : 0, i, n;
	const char *c;

	if (dlen && !strncmp(file, dir, dlen) && file[dlen] == '/')
		return file + dlen + 1;
	while (!strncmp(file, "./", 2))
		file += 2;
	if (file[0] != '/')
		return file;
	for (c = file; (c = strchr(c, '/')); c++) {
		for (i = 0; i < sizeof(tops) / sizeof(tops[0]); i++) {
			n = strlen(tops[i]);
			if (!strncmp(c + 1, tops[i], n) && c[n + 1] == '/')
				return c + 1;
		}
	}
	return file;
}

/*
 * An allocator's inline wrapper, which allocinfo names the caller of: from
 * 6.10 the _noprof functions that alloc_hooks() wraps (kmalloc_noprof(),
 * alloc_pages_node_noprof()...), before that the inline kmalloc(),
 * kzalloc(), alloc_pages_node()... of include/linux/slab.h and gfp.h.
 */
static bool alloc_wrapper(Dwarf_Die *die)
{
	static const char *const headers[] = {
		"include/linux/slab.h", "include/linux/gfp.h",
	};
	const char *name = dwarf_diename(die), *file;
	size_t n, i, h;

	if (name) {
		n = strlen(name);
		if (n > 7 && !strcmp(name + n - 7, "_noprof"))
			return true;
	}
	file = dwarf_decl_file(die);
	if (!file)
		return false;
	n = strlen(file);
	for (i = 0; i < sizeof(headers) / sizeof(headers[0]); i++) {
		h = strlen(headers[i]);
		if (n >= h && !strcmp(file + n - h, headers[i]) &&
		    (n == h || file[n - h - 1] == '/'))
			return true;
	}
	return false;
}

#define MAX_INLINES 64

/*
 * The functions inlined at @pc into the concrete function there, outermost
 * first: the DW_TAG_inlined_subroutine DIEs on the way down from the CU
 * through the DIEs that hold @pc. (dwarf_getscopes() goes up through the
 * abstract definitions instead.) Returns how many, at most MAX_INLINES.
 */
static size_t inline_chain(Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *out)
{
	Dwarf_Die die = *cu, child;
	size_t n = 0;
	bool down;
	int tag;

	for (;;) {
		if (dwarf_child(&die, &child))
			return n;
		down = false;
		do {
			tag = dwarf_tag(&child);
			if ((tag == DW_TAG_subprogram ||
			     tag == DW_TAG_inlined_subroutine ||
			     tag == DW_TAG_lexical_block) &&
			    dwarf_haspc(&child, pc) == 1) {
				if (tag == DW_TAG_inlined_subroutine) {
					if (n == MAX_INLINES)
						return n;
					out[n++] = child;
				}
				die = child;
				down = true;
				break;
			}
		} while (!dwarf_siblingof(&child, &child));
		if (!down)
			return n;
	}
}

/*
 * Where allocinfo's alloc_hooks() would be, in the @n functions inlined at
 * the site (@chain, outermost first): when the code there is in an
 * allocator's inline wrappers (kmalloc_noprof() in kzalloc_noprof()...),
 * the line that calls the outermost of them, in whatever function that
 * is, inlined or not. Returns how many of @chain are around that line,
 * the function that holds it being the last of them (none: the concrete
 * function); @n, with *@file unset, when the code is not in a wrapper and
 * the line table's own line, the innermost, is the site's.
 */
static size_t wrapper_call(Dwarf_Die *cu, Dwarf_Die *chain, size_t n,
			   const char **file, int *line, const char **dir)
{
	Dwarf_Attribute a;
	Dwarf_Word fidx, lno;
	Dwarf_Files *files;
	size_t nfiles, k;

	if (!n || !alloc_wrapper(&chain[n - 1]))
		return n;
	for (k = n - 1; k > 0 && alloc_wrapper(&chain[k - 1]); k--)
		;
	if (!dwarf_attr_integrate(&chain[k], DW_AT_call_file, &a) ||
	    dwarf_formudata(&a, &fidx) ||
	    !dwarf_attr_integrate(&chain[k], DW_AT_call_line, &a) ||
	    dwarf_formudata(&a, &lno) || !lno ||
	    dwarf_getsrcfiles(cu, &files, &nfiles) || fidx >= nfiles)
		return n;
	*file = dwarf_filesrc(files, fidx, NULL, NULL);
	if (!*file)
		return n;
	*line = (int)lno;
	*dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &a));
	return k;
}

/*
 * file:line of @site in @f, into @buf, and in *@inl the name of the
 * function inlined at the site that holds that line, as addr2line -f -i
 * names it (alloc_thread_stack_node() in copy_process()), or NULL when
 * the line is in the symbol's own function; false if unknown. *@inl
 * lives as long as the Dwfl.
 */
static bool lookup(struct elf_file *f, const char *site, char *buf,
		   size_t buflen, const char **inl)
{
	Dwarf_Die *cu, chain[MAX_INLINES];
	char sym[256];
	const struct rsym *s;
	const char *file = NULL, *dir;
	uint64_t off, len;
	Dwarf_Addr addr, bias;
	Dwfl_Line *line;
	size_t n = 0, k;
	int lineno;

	*inl = NULL;
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
	cu = dwfl_module_addrdie(f->mod, addr, &bias);
	if (cu)
		n = inline_chain(cu, addr - bias, chain);
	k = wrapper_call(cu, chain, n, &file, &lineno, &dir);
	if (!file) {
		file = dwfl_lineinfo(line, &addr, &lineno, NULL, NULL, NULL);
		dir = dwfl_line_comp_dir(line);
	}
	if (!file || lineno <= 0)
		return false;
	if (k)
		*inl = dwarf_diename(&chain[k - 1]);
	snprintf(buf, buflen, "%s:%d", short_path(file, dir), lineno);
	return true;
}

struct want;

/*
 * One resolution's state, passed down from kp_resolve() and
 * kp_resolve_auto(): the profile, the files to read and, by build id,
 * the objects still to find.
 */
struct resolver {
	const struct kp_profile *p;
	struct elf_path *v;	/* the files to read */
	size_t n, cap;
	struct want *wants;	/* kp_resolve_auto(): the objects */
	size_t nwants;
	struct kp_keymap want_names;	/* name -> index in wants */
	struct kp_keymap mods;	/* the profile's modules (wanted()) */
	bool mods_ok;		/* mods holds them */
};

static void resolver_free(struct resolver *r)
{
	free(r->wants);
	free(r->v);
	if (r->wants)
		kp_keymap_free(&r->want_names);
	if (r->mods_ok)
		kp_keymap_free(&r->mods);
}

/*
 * nftw()'s callbacks take no argument: the resolver whose walk it is,
 * set only while walk() runs.
 */
static _Thread_local struct resolver *walking;

static int walk(struct resolver *r, const char *root,
		int (*fn)(const char *, const struct stat *, int,
			  struct FTW *))
{
	int ret;

	walking = r;
	ret = nftw(root, fn, 16, FTW_PHYS);
	walking = NULL;
	return ret;
}

static int add_file(struct resolver *r, const char *path, bool vmlinux)
{
	struct elf_path *e;

	if (r->n == r->cap) {
		size_t c = r->cap ? 2 * r->cap : 8;

		e = realloc(r->v, c * sizeof(*e));
		if (!e)
			return -ENOMEM;
		r->v = e;
		r->cap = c;
	}
	e = &r->v[r->n++];
	snprintf(e->path, sizeof(e->path), "%s", path);
	e->name[0] = '\0';
	if (!vmlinux && !modinfo_name(path, e->name, sizeof(e->name)))
		module_name(path, e->name, sizeof(e->name));
	return 0;
}

/*
 * A module of the profile's that has no file yet: its modules in a hash
 * (keymap.c) made at the first ask, as a walk asks for every file.
 */
static bool wanted(struct resolver *r, const char *name)
{
	bool added;
	size_t i;

	for (i = 0; i < r->n; i++)
		if (!strcmp(r->v[i].name, name))
			return false;
	if (!r->mods_ok) {
		if (kp_keymap_init(&r->mods, 64))
			return false;
		r->mods_ok = true;
		for (i = 0; i < r->p->n; i++)
			if (r->p->sites[i].module &&
			    kp_keymap_get(&r->mods, r->p->sites[i].module,
					  true, &added) < 0)
				return false;
	}
	return kp_keymap_get(&r->mods, name, false, &added) >= 0;
}

static int walk_one(const char *path, const struct stat *st, int type,
		    struct FTW *ftw)
{
	char name[128];

	(void)st;
	(void)ftw;
	if (type != FTW_F || !strstr(path, ".ko"))
		return 0;
	module_name(path, name, sizeof(name));
	return wanted(walking, name) && add_file(walking, path, false) ? -1 : 0;
}

/* The files to read: @spec's, or the running kernel's debug files. */
/*
 * Whether @path is a module: an ELF relocatable (ET_REL; vmlinux is
 * ET_EXEC), or, when it cannot be read as ELF (compressed), named .ko.
 */
static bool is_module(const char *path)
{
	unsigned char h[18];
	bool got;
	FILE *f = fopen(path, "r");

	got = f && fread(h, 1, sizeof(h), f) == sizeof(h) &&
	      !memcmp(h, ELFMAG, SELFMAG);
	if (f)
		fclose(f);
	if (!got)
		return strstr(path, ".ko") != NULL;
	/* e_type, in the file's byte order */
	return (h[EI_DATA] == ELFDATA2MSB ? h[16] << 8 | h[17] :
		h[17] << 8 | h[16]) == ET_REL;
}

static int files_of(struct resolver *r, const char *spec, char *err,
		    size_t errlen)
{
	char path[512], *copy, *tok, *save = NULL;
	struct utsname u;
	int ret = 0;

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
			/* a module given first is a module, whatever its name */
			ret = add_file(r, tok, tok == copy && !is_module(tok));
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
		ret = add_file(r, path, true);
	snprintf(path, sizeof(path), "/usr/lib/debug/lib/modules/%s",
		 u.release);
	if (!ret && !access(path, R_OK) && walk(r, path, walk_one))
		ret = -ENOMEM;
	snprintf(path, sizeof(path), "/lib/modules/%s", u.release);
	if (!ret && !access(path, R_OK) && walk(r, path, walk_one))
		ret = -ENOMEM;
	if (!ret && !r->n) {
		snprintf(err, errlen, "no vmlinux with debug info in "
			 "/usr/lib/debug/boot/vmlinux-%s, and no modules under "
			 "/lib/modules/%s", u.release, u.release);
		ret = -ENOENT;
	}
	return ret;
}

/*
 * Resolve the sites that belong to @f; returns how many, or -ENOMEM.
 * @quiet: found by build id, not named by the user: say nothing, and
 * leave the sites of unloaded modules alone (their code is gone, and a
 * module of that name loaded since may be another build).
 */
static int resolve_file(struct kp_profile *p, struct elf_file *f, bool quiet)
{
	const char *name = f->ep->name, *inl;
	size_t i, tried = 0;
	char buf[1024];
	int done = 0;

	for (i = 0; i < p->n; i++) {
		struct kp_site *s = &p->sites[i];

		if (s->srcline || !strstr(s->site, "+0x") ||
		    strcmp(s->module ? s->module : "", name) ||
		    (quiet && s->unloaded))
			continue;
		tried++;
		if (!lookup(f, s->site, buf, sizeof(buf), &inl))
			continue;
		s->srcline = strdup(buf);
		if (!s->srcline)
			return -ENOMEM;
		if (inl) {
			s->srcfunc = strdup(inl);
			if (!s->srcfunc)
				return -ENOMEM;
		}
		done++;
	}
	if (tried && !f->has_lines && !quiet)
		fprintf(stderr, "kmemprof: --resolve: %s: no DWARF line table "
			"for its sites (build with CONFIG_DEBUG_INFO_DWARF5=y, "
			"or -g)\n", f->ep->path);
	/* A file named for nothing here: said, not silently nothing. */
	if (!tried && !quiet) {
		fprintf(stderr, "kmemprof: --resolve: %s: no site of %s%s here\n",
			f->ep->path, *name ? "module " : "the kernel", name);
		return -ENOENT;
	}
	return done;
}

/* Resolve @p's sites through @rs's files; -ENOENT if none opened. */
static int resolve_files(const struct resolver *rs, struct kp_profile *p,
			 bool quiet, char *err, size_t errlen)
{
	int ret = 0, r, done = 0, opened = 0;
	size_t j;

	for (j = 0; j < rs->n; j++) {
		struct elf_file f = { .ep = &rs->v[j] };

		if (elf_open(&f, err, errlen)) {
			/* Say why, and go on with the others. */
			if (!quiet)
				fprintf(stderr, "kmemprof: --resolve: %s\n",
					err);
			elf_close(&f);
			continue;
		}
		r = resolve_file(p, &f, quiet);
		elf_close(&f);
		if (r == -ENOENT)
			continue;	/* none of its sites here: said */
		opened++;
		if (r < 0)
			ret = r;
		else
			done += r;
	}
	if (ret)
		return ret;
	if (!opened) {
		/* every file failed or had no site here, each said why */
		snprintf(err, errlen, "nothing resolved");
		return -ENOENT;
	}
	err[0] = '\0';
	return done;
}

int kp_resolve(struct kp_profile *p, const char *spec, char *err,
	       size_t errlen)
{
	struct resolver r = { .p = p };
	int ret;

	ret = files_of(&r, spec, err, errlen);
	if (!ret)
		ret = resolve_files(&r, p, false, err, errlen);
	resolver_free(&r);
	return ret;
}

/*
 * Resolution without asking: the debug files of the running kernel and
 * its modules, found by GNU build id. Each object of the profile (the
 * kernel, each loaded module with sites) has its build id read from
 * /sys/kernel/notes or /sys/module/MOD/notes/.note.gnu.build-id; the
 * candidates below, in this order, are taken only when theirs is the
 * same and they carry DWARF:
 *
 *   /usr/lib/debug/.build-id/XX/REST.debug          (Debian's -dbg)
 *   the kernel: /usr/lib/debug/boot/vmlinux-R, /usr/lib/debug/lib/modules/R/
 *     vmlinux, /lib/modules/R/build/vmlinux, /boot/vmlinux-R
 *   a module: MOD.ko under /usr/lib/debug/lib/modules/R, then as
 *     /lib/modules/R/modules.dep lists it (a walk of /lib/modules/R
 *     without one)
 *
 * R is the release, from /proc/sys/kernel/osrelease; every path is under
 * $KMEMPROF_ROOT. Whatever is not found keeps its symbol, silently.
 */
#define MAX_ID KP_BUILD_ID_MAX

struct want {
	char name[128];		/* module, "" for the kernel */
	unsigned char id[MAX_ID];
	size_t idlen;
	bool found;
};

size_t kp_note_build_id(const unsigned char *b, size_t len,
			unsigned char *id)
{
	size_t off = 0;

	while (len - off >= 12) {
		uint32_t nsz, dsz, type;
		uint64_t name, desc, next;

		memcpy(&nsz, b + off, 4);
		memcpy(&dsz, b + off + 4, 4);
		memcpy(&type, b + off + 8, 4);
		name = off + 12;
		desc = name + (((uint64_t)nsz + 3) & ~3ULL);
		next = desc + (((uint64_t)dsz + 3) & ~3ULL);
		if (desc + dsz > len)
			return 0;
		if (type == NT_GNU_BUILD_ID && nsz == 4 &&
		    !memcmp(b + name, "GNU", 4) && dsz && dsz <= MAX_ID) {
			memcpy(id, b + desc, dsz);
			return dsz;
		}
		if (next >= len)
			return 0;
		off = next;
	}
	return 0;
}

static size_t file_build_id(const char *rel, unsigned char *id)
{
	unsigned char buf[4096];
	char path[4096];
	size_t n;
	FILE *f = fopen(kp_path(rel, path, sizeof(path)), "re");

	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	return kp_note_build_id(buf, n, id);
}

/* Whether @path (already under the root) has @w's build id and DWARF. */
static bool matches(const char *path, const struct want *w)
{
	const void *id;
	Elf_Scn *scn = NULL;
	size_t shstr;
	bool ok = false;
	Elf *e;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (e && dwelf_elf_gnu_build_id(e, &id) == (ssize_t)w->idlen &&
	    !memcmp(id, w->id, w->idlen) && !elf_getshdrstrndx(e, &shstr)) {
		while (!ok && (scn = elf_nextscn(e, scn))) {
			GElf_Shdr sh;
			const char *n;

			if (!gelf_getshdr(scn, &sh))
				break;
			n = elf_strptr(e, shstr, sh.sh_name);
			ok = n && (!strcmp(n, ".debug_line") ||
				   !strcmp(n, ".zdebug_line"));
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	return ok;
}

/* Take @rel for @w if it matches. */
static bool try_path(struct resolver *r, struct want *w, const char *rel,
		     bool under_root)
{
	char path[4096];
	size_t i = r->n;

	if (w->found)
		return true;
	if (under_root)
		kp_path(rel, path, sizeof(path));
	else
		snprintf(path, sizeof(path), "%s", rel);
	if (!matches(path, w) || add_file(r, path, true))
		return false;
	snprintf(r->v[i].name, sizeof(r->v[i].name), "%s", w->name);
	w->found = true;
	return true;
}

static struct want *want_of(struct resolver *r, const char *name)
{
	bool added;
	long k = kp_keymap_get(&r->want_names, name, false, &added);

	return k >= 0 && !r->wants[k].found ? &r->wants[k] : NULL;
}

static int walk_want(const char *path, const struct stat *st, int type,
		     struct FTW *ftw)
{
	char name[128];
	struct want *w;

	(void)st;
	if (type != FTW_F || !strstr(path + ftw->base, ".ko"))
		return 0;
	module_name(path, name, sizeof(name));
	w = want_of(walking, name);
	if (w)
		try_path(walking, w, path, false);
	return 0;
}

static bool missing_module(const struct resolver *r)
{
	size_t i;

	for (i = 0; i < r->nwants; i++)
		if (!r->wants[i].found && *r->wants[i].name)
			return true;
	return false;
}

/* The modules as modules.dep lists them; false without one. */
static bool modules_dep(struct resolver *r, const char *rel)
{
	char dep[512], path[4096], *line = NULL, *c;
	size_t cap = 0;
	struct want *w;
	FILE *f;

	snprintf(dep, sizeof(dep), "/lib/modules/%s/modules.dep", rel);
	f = fopen(kp_path(dep, path, sizeof(path)), "re");
	if (!f)
		return false;
	while (missing_module(r) && getline(&line, &cap, f) > 0) {
		c = strchr(line, ':');
		if (!c)
			continue;
		*c = '\0';
		module_name(line, dep, sizeof(dep));
		w = want_of(r, dep);
		if (!w)
			continue;
		snprintf(path, sizeof(path), "/lib/modules/%s/%s", rel, line);
		try_path(r, w, path, true);
	}
	free(line);
	fclose(f);
	return true;
}

static void find_debug_files(struct resolver *r, const char *rel)
{
	static const char *const kernel[] = {
		"/usr/lib/debug/boot/vmlinux-%s",
		"/usr/lib/debug/lib/modules/%s/vmlinux",
		"/lib/modules/%s/build/vmlinux",
		"/boot/vmlinux-%s",
	};
	char path[4096], root[4096], hex[2 * MAX_ID + 1];
	size_t i, j;

	for (i = 0; i < r->nwants; i++) {
		struct want *w = &r->wants[i];

		for (j = 0; j < w->idlen; j++)
			sprintf(hex + 2 * j, "%02x", w->id[j]);
		snprintf(path, sizeof(path), "/usr/lib/debug/.build-id/%.2s/%s.debug",
			 hex, hex + 2);
		if (try_path(r, w, path, true) || *w->name)
			continue;
		for (j = 0; j < sizeof(kernel) / sizeof(kernel[0]); j++) {
			snprintf(path, sizeof(path), kernel[j], rel);
			if (try_path(r, w, path, true))
				break;
		}
	}
	if (!missing_module(r))
		return;
	snprintf(path, sizeof(path), "/usr/lib/debug/lib/modules/%s", rel);
	kp_path(path, root, sizeof(root));
	if (!access(root, R_OK))
		walk(r, root, walk_want);
	if (!missing_module(r) || modules_dep(r, rel))
		return;
	snprintf(path, sizeof(path), "/lib/modules/%s", rel);
	kp_path(path, root, sizeof(root));
	if (!access(root, R_OK))
		walk(r, root, walk_want);
}

/* The objects of @p's sites and their build ids. */
static int want_objects(struct resolver *r, const struct kp_profile *p)
{
	char rel[512];
	struct want *w;
	size_t i;

	r->wants = calloc(p->n + 1, sizeof(*r->wants));
	if (!r->wants)
		return -ENOMEM;
	if (kp_keymap_init(&r->want_names, 64)) {
		free(r->wants);
		r->wants = NULL;
		return -ENOMEM;
	}
	for (i = 0; i < p->n; i++) {
		const struct kp_site *s = &p->sites[i];
		const char *name = s->module ? s->module : "";
		bool added;
		long k;

		if (s->srcline || s->unloaded || !strstr(s->site, "+0x"))
			continue;
		/* Numbered as wants is: index k is wants[k]. */
		k = kp_keymap_get(&r->want_names, name, true, &added);
		if (k < 0)
			return -ENOMEM;
		if (!added)
			continue;
		w = &r->wants[r->nwants];
		snprintf(w->name, sizeof(w->name), "%s", name);
		if (*name)
			snprintf(rel, sizeof(rel),
				 "/sys/module/%s/notes/.note.gnu.build-id", name);
		else
			snprintf(rel, sizeof(rel), "/sys/kernel/notes");
		w->idlen = file_build_id(rel, w->id);
		/* Without a build id, nothing can match: done with it. */
		w->found = !w->idlen;
		r->nwants++;
	}
	return 0;
}

int kp_resolve_auto(struct kp_profile *p)
{
	char rel[256] = "", path[512], err[512];
	struct resolver r = { .p = p };
	struct utsname u;
	FILE *f;
	int ret;

	ret = want_objects(&r, p);
	if (!ret && r.nwants) {
		f = fopen(kp_path("/proc/sys/kernel/osrelease", path,
				  sizeof(path)), "re");
		if (f) {
			if (fgets(rel, sizeof(rel), f))
				rel[strcspn(rel, "\n")] = '\0';
			fclose(f);
		}
		if (!*rel && !uname(&u))
			snprintf(rel, sizeof(rel), "%s", u.release);
		find_debug_files(&r, rel);
		ret = r.n ? resolve_files(&r, p, true, err, sizeof(err)) : 0;
	}
	resolver_free(&r);
	return ret;
}

#endif /* KP_HAVE_DW */
