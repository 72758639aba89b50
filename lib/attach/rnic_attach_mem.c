/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An attached application's registered memory (rnic_attach.h): the
 * daemon can only reach memory it can map, so the pages of an MR must
 * live in a memfd. Anonymous private memory (malloc, the heap, mmap
 * MAP_PRIVATE|MAP_ANONYMOUS) is moved into one in place: the pages are
 * made read-only, copied into a sealed memfd, and the memfd is mapped
 * over them at the same address. A thread of the process that writes to
 * those pages in between faults, waits in a SIGSEGV handler until the
 * shared pages are there, and writes again: nothing written is lost.
 * Memory moved once is recognised (its memfd) and shared again as it is.
 *
 * Refused (EFAULT, with the reason on stderr): unmapped pages, file and
 * shared mappings of others, hugetlb memory, read-only pages, the
 * calling thread's own stack.
 *
 * The memfds stay open for the life of the process (a later attach
 * registers the same pages again), one per region moved.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>

#include "rnic_attach_client.h"

struct att_region {
	uintptr_t start, end;    /* where it was mapped when made */
	int fd;
	dev_t dev;
	ino_t ino;
};

static struct {
	pthread_mutex_t lock;
	struct att_region *r;
	unsigned int n, cap;
} regions = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* The freeze window of att_move (one at a time, under regions.lock).
 * The handler stays installed once the first move is made: a thread that
 * faulted in the window may get its signal only after the window closed,
 * and must then find this handler (which lets it write again), not the
 * default action. */
static volatile uintptr_t freeze_lo, freeze_hi;
static volatile int freeze_on;
static struct sigaction old_segv;
static bool segv_installed;

static void
segv_wait(int sig, siginfo_t *si, void *uc)
{
	uintptr_t a = (uintptr_t)si->si_addr;

	if (a >= freeze_lo && a < freeze_hi) {
		struct timespec ts = { 0, 20000 };

		/* Return once the shared pages are mapped (at once when they
		 * are already): the write is made again, into them. */
		while (__atomic_load_n(&freeze_on, __ATOMIC_ACQUIRE))
			nanosleep(&ts, NULL);
		return;
	}
	/* Not ours: the program's own fault goes where it would have. */
	if (old_segv.sa_flags & SA_SIGINFO) {
		old_segv.sa_sigaction(sig, si, uc);
		return;
	}
	if (old_segv.sa_handler != SIG_DFL && old_segv.sa_handler != SIG_IGN) {
		old_segv.sa_handler(sig);
		return;
	}
	sigaction(SIGSEGV, &old_segv, NULL);   /* faults again, as before */
}

/* One line of /proc/self/maps. */
struct att_map {
	uintptr_t start, end;
	char perms[5];
	uint64_t offset;
	unsigned int maj, min;
	uint64_t ino;
	char path[128];
};

/* The mappings that cover [lo, hi), in order; their count, or -EFAULT
 * when a page in it is not mapped. */
static int
maps_read(uintptr_t lo, uintptr_t hi, struct att_map *out, unsigned int max)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[512];
	uintptr_t at = lo;
	unsigned int n = 0;

	if (f == NULL)
		return -errno;
	while (at < hi && fgets(line, sizeof(line), f) != NULL) {
		struct att_map m = { .path = "" };
		int pos = 0;

		if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %4s %" SCNx64 " %x:%x %" SCNu64 " %n",
			   &m.start, &m.end, m.perms, &m.offset, &m.maj, &m.min, &m.ino,
			   &pos) < 7)
			continue;
		if (m.end <= at)
			continue;
		if (m.start > at || n == max)
			break;   /* a hole at @at, or too many pieces */
		if (pos > 0) {
			snprintf(m.path, sizeof(m.path), "%s", line + pos);
			m.path[strcspn(m.path, "\n")] = '\0';
		}
		out[n++] = m;
		at = m.end;
	}
	fclose(f);
	return at >= hi ? (int)n : -EFAULT;
}

static struct att_region *
region_of(const struct att_map *m)
{
	for (unsigned int i = 0; i < regions.n; i++)
		if (regions.r[i].ino == m->ino &&
		    major(regions.r[i].dev) == m->maj && minor(regions.r[i].dev) == m->min)
			return &regions.r[i];
	return NULL;
}

/* Move the anonymous pages [s, e) into a new memfd, in place. */
static int
att_move(uintptr_t s, uintptr_t e)
{
	size_t len = e - s, done = 0;
	struct sigaction sa = { .sa_sigaction = segv_wait, .sa_flags = SA_SIGINFO | SA_NODEFER };
	struct att_region *r;
	struct stat st;
	int fd, rc = 0;
	uintptr_t sp = (uintptr_t)&sa;

	if (sp >= s && sp < e) {
		fprintf(stderr, "softrnic attach: cannot register memory on the calling thread's "
			"stack (%#" PRIxPTR ")\n", s);
		return -EFAULT;
	}
	/* Everything that allocates comes before the window: in it this
	 * thread makes system calls only. */
	if (regions.n == regions.cap) {
		unsigned int cap = regions.cap ? regions.cap * 2 : 16;
		struct att_region *nr = realloc(regions.r, cap * sizeof(*nr));

		if (nr == NULL)
			return -ENOMEM;
		regions.r = nr;
		regions.cap = cap;
	}
	fd = memfd_create("softrnic-mr", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)len) != 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0 ||
	    fstat(fd, &st) != 0) {
		rc = -errno;
		close(fd);
		return rc;
	}
	if (!segv_installed) {
		if (sigaction(SIGSEGV, &sa, &old_segv) != 0) {
			rc = -errno;
			close(fd);
			return rc;
		}
		segv_installed = true;
	}
	__atomic_store_n(&freeze_on, 1, __ATOMIC_RELEASE);
	freeze_lo = s;
	freeze_hi = e;
	if (mprotect((void *)s, len, PROT_READ) != 0) {
		rc = -errno;
		goto out;
	}
	while (done < len) {
		/* The raw system call: the pages are copied whole, whatever
		 * objects (and a sanitizer's redzones) they hold. */
		ssize_t w = syscall(SYS_pwrite64, fd, (const void *)(s + done), len - done,
				    (off_t)done);

		if (w <= 0) {
			rc = w < 0 ? -errno : -EIO;
			break;
		}
		done += (size_t)w;
	}
	if (rc != 0 || mmap((void *)s, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd,
			    0) == MAP_FAILED) {
		if (rc == 0)
			rc = -errno;
		mprotect((void *)s, len, PROT_READ | PROT_WRITE);
	}
out:
	__atomic_store_n(&freeze_on, 0, __ATOMIC_RELEASE);
	if (rc != 0) {
		close(fd);
		return rc;
	}
	r = &regions.r[regions.n++];
	*r = (struct att_region){ .start = s, .end = e, .fd = fd, .dev = st.st_dev,
				  .ino = st.st_ino };
	return 0;
}

static bool
movable(const struct att_map *m)
{
	return strcmp(m->perms, "rw-p") == 0 && m->ino == 0 && m->maj == 0 && m->min == 0 &&
	       (m->path[0] == '\0' || strcmp(m->path, "[heap]") == 0);
}

static void
refuse(const struct att_map *m, uintptr_t at)
{
	char what[192];

	if (m == NULL)
		snprintf(what, sizeof(what), "it is not mapped");
	else
		snprintf(what, sizeof(what), "a %s %s mapping, which the daemon cannot map",
			 m->perms, m->path[0] ? m->path : "anonymous");
	fprintf(stderr, "softrnic attach: memory at %#" PRIxPTR " cannot be registered: %s "
		"(register anonymous read-write memory: malloc, or mmap MAP_PRIVATE|"
		"MAP_ANONYMOUS; doc/ibverbs.md \"Attached\")\n", at, what);
}

int
att_mem_share(uintptr_t addr, uint64_t len, struct att_share *out)
{
	const uintptr_t ps = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t lo = addr & ~(ps - 1), hi;
	struct att_map m[RNIC_ATT_MAX_PIECES];
	int n, rc = 0;

	if (len == 0 || addr + len < addr)
		return -EINVAL;
	hi = (addr + len + ps - 1) & ~(ps - 1);
	memset(out, 0, sizeof(*out));
	out->offset = addr - lo;
	pthread_mutex_lock(&regions.lock);
	n = maps_read(lo, hi, m, RNIC_ATT_MAX_PIECES);
	if (n < 0) {
		refuse(NULL, lo);
		rc = n;
		goto out;
	}
	/* Move what must move, then read the maps again: every piece is
	 * then one of our memfds. */
	for (int i = 0; i < n; i++) {
		uintptr_t s = RTE_MAX(m[i].start, lo), e = RTE_MIN(m[i].end, hi);

		if (region_of(&m[i]) != NULL)
			continue;
		if (!movable(&m[i])) {
			refuse(&m[i], s);
			rc = -EFAULT;
			goto out;
		}
		rc = att_move(s, e);
		if (rc != 0)
			goto out;
	}
	n = maps_read(lo, hi, m, RNIC_ATT_MAX_PIECES);
	if (n < 0) {
		rc = n;
		goto out;
	}
	for (int i = 0; i < n; i++) {
		uintptr_t s = RTE_MAX(m[i].start, lo), e = RTE_MIN(m[i].end, hi);
		struct att_region *r = region_of(&m[i]);
		unsigned int f;

		if (r == NULL) {
			refuse(&m[i], s);
			rc = -EFAULT;
			goto out;
		}
		for (f = 0; f < out->n_fds && out->fds[f] != r->fd; f++)
			;
		if (f == out->n_fds)
			out->fds[out->n_fds++] = r->fd;
		out->piece[out->n_pieces++] = (struct rnic_att_piece){
			.fd = f, .offset = m[i].offset + (s - m[i].start), .length = e - s };
	}
out:
	pthread_mutex_unlock(&regions.lock);
	return rc;
}
