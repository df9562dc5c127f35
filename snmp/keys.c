/*
 * The SNMPv3 key files (include/apenet/keys.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "apenet/keys.h"

static int unhex(const char *s, uint8_t *out, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int v = 0;
		for (int j = 0; j < 2; j++) {
			char c = s[2 * i + j];
			int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
							 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
			if (d < 0)
				return -1;
			v = v << 4 | d;
		}
		out[i] = (uint8_t)v;
	}
	return s[2 * n] ? -1 : 0;
}

static void tohex(const uint8_t *v, size_t n, char *out)
{
	static const char d[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = d[v[i] >> 4];
		out[2 * i + 1] = d[v[i] & 15];
	}
	out[2 * n] = 0;
}

/* The file's lines "key: value" in turn; comments and blank lines skipped.
 * The file must be ours alone: a key others can read is a key others have. */
struct kf {
	const char *path;
	FILE *f;
	unsigned line;
	char buf[256];
};

static int kf_open(struct kf *k, const char *path, struct apenet_err *e)
{
	memset(k, 0, sizeof(*k));
	k->path = path;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return apenet_err_set(e, APENET_EIO, "%s: %s", path, strerror(errno));
	struct stat st;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return apenet_err_set(e, APENET_EINVAL, "%s: not a regular file", path);
	}
	if (st.st_mode & 077) {
		close(fd);
		return apenet_err_set(e, APENET_EINVAL,
				      "%s: mode %04o lets others read or change a key: chmod 600 it (and make a new "
				      "key if others may have read it: docs/security.md)",
				      path, (unsigned)(st.st_mode & 07777));
	}
	if (!(k->f = fdopen(fd, "r"))) {
		close(fd);
		return apenet_err_set(e, APENET_EIO, "%s: %s", path, strerror(errno));
	}
	return 0;
}

/* The next "key: value": 1, 0 at the end, -1 on a malformed line. */
static int kf_next(struct kf *k, char **key, char **val, struct apenet_err *e)
{
	while (fgets(k->buf, sizeof(k->buf), k->f)) {
		k->line++;
		size_t n = strlen(k->buf);
		if (n && k->buf[n - 1] != '\n' && !feof(k->f))
			return apenet_err_set(e, APENET_EINVAL, "%s:%u: line too long", k->path, k->line);
		while (n && (k->buf[n - 1] == '\n' || k->buf[n - 1] == '\r' || k->buf[n - 1] == ' '))
			k->buf[--n] = 0;
		char *p = k->buf;
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '#')
			continue;
		char *colon = strchr(p, ':');
		if (!colon)
			return apenet_err_set(e, APENET_EINVAL, "%s:%u: expected 'key: value'", k->path, k->line);
		*colon = 0;
		char *v = colon + 1;
		while (*v == ' ' || *v == '\t')
			v++;
		*key = p;
		*val = v;
		return 1;
	}
	return 0;
}

static void kf_close(struct kf *k)
{
	if (k->f)
		fclose(k->f);
	OPENSSL_cleanse(k->buf, sizeof(k->buf));
}

int apenet_keys_read_secret(const char *path, uint8_t secret[APENET_SITE_SECRET_LEN], struct apenet_err *e)
{
	struct kf k;
	char *key, *val;
	int r, have = 0;
	if (kf_open(&k, path, e))
		return -1;
	while ((r = kf_next(&k, &key, &val, e)) == 1) {
		if (strcmp(key, "secret")) {
			r = apenet_err_set(e, APENET_EINVAL, "%s:%u: unknown field '%.40s' (a site secret has 'secret')",
					   path, k.line, key);
			break;
		}
		if (unhex(val, secret, APENET_SITE_SECRET_LEN)) {
			r = apenet_err_set(e, APENET_EINVAL, "%s:%u: secret: not %d hex digits", path, k.line,
					   2 * APENET_SITE_SECRET_LEN);
			break;
		}
		have = 1;
	}
	kf_close(&k);
	if (r < 0)
		return -1;
	if (!have)
		return apenet_err_set(e, APENET_EINVAL, "%s: no 'secret:' line (make one with apenet keys init)", path);
	return 0;
}

int apenet_keys_read_node(const char *path, struct apenet_node_key *out, struct apenet_err *e)
{
	struct kf k;
	char *key, *val;
	int r, have = 0;
	struct apenet_node_key nk;
	memset(&nk, 0, sizeof(nk));
	if (kf_open(&k, path, e))
		return -1;
	while ((r = kf_next(&k, &key, &val, e)) == 1) {
		if (!strcmp(key, "user")) {
			if (strlen(val) > APENET_USM_USER_MAX ||
			    apenet_usm_node_parse((const uint8_t *)val, strlen(val), nk.xyz)) {
				r = apenet_err_set(e, APENET_EINVAL, "%s:%u: user: not node-X,Y,Z", path, k.line);
				break;
			}
			snprintf(nk.user, sizeof(nk.user), "%s", val);
			have |= 1;
		} else if (!strcmp(key, "auth") || !strcmp(key, "priv")) {
			int auth = key[0] == 'a';
			const char *kind = auth ? "sha256:" : "aes128:";
			if (strncmp(val, kind, 7) || unhex(val + 7, auth ? nk.auth_ku : nk.priv_ku, APENET_USM_KEY_LEN)) {
				r = apenet_err_set(e, APENET_EINVAL, "%s:%u: %s: not '%s' and %d hex digits", path, k.line,
						   key, kind, 2 * APENET_USM_KEY_LEN);
				break;
			}
			have |= auth ? 2 : 4;
		} else {
			r = apenet_err_set(e, APENET_EINVAL, "%s:%u: unknown field '%.40s' (a node key has user, auth, priv)",
					   path, k.line, key);
			break;
		}
	}
	kf_close(&k);
	if (r >= 0 && have != 7)
		r = apenet_err_set(e, APENET_EINVAL, "%s: no '%s:' line (make it with apenet keys node)", path,
				   !(have & 1) ? "user" : !(have & 2) ? "auth" : "priv");
	if (r >= 0)
		*out = nk;
	OPENSSL_cleanse(&nk, sizeof(nk));
	return r < 0 ? -1 : 0;
}

int apenet_keys_new_secret(uint8_t secret[APENET_SITE_SECRET_LEN], struct apenet_err *e)
{
	size_t got = 0;
	while (got < APENET_SITE_SECRET_LEN) {
		ssize_t n = getrandom(secret + got, APENET_SITE_SECRET_LEN - got, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return apenet_err_set(e, APENET_EIO, "getrandom: %s", strerror(errno));
		got += (size_t)n;
	}
	return 0;
}

int apenet_keys_node(const uint8_t secret[APENET_SITE_SECRET_LEN], unsigned x, unsigned y, unsigned z,
		     struct apenet_node_key *k, struct apenet_err *e)
{
	memset(k, 0, sizeof(*k));
	if (x > 65535 || y > 65535 || z > 65535)
		return apenet_err_set(e, APENET_EINVAL, "node %u,%u,%u: coordinates above 65535", x, y, z);
	apenet_usm_node_user(x, y, z, k->user, sizeof(k->user));
	k->xyz[0] = x;
	k->xyz[1] = y;
	k->xyz[2] = z;
	if (apenet_usm_node_ku(secret, APENET_SITE_SECRET_LEN, k->user, k->auth_ku, k->priv_ku))
		return apenet_err_set(e, APENET_EIO, "node %u,%u,%u: libcrypto could not derive the keys", x, y, z);
	return 0;
}

static int write_new(const char *path, const char *text, uid_t uid, gid_t gid, struct apenet_err *e)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return apenet_err_set(e, APENET_EIO, "%s: %s%s", path, strerror(errno),
				      errno == EEXIST ? " (keys are not overwritten: remove it first)" : "");
	size_t n = strlen(text), off = 0;
	int bad = 0;
	while (off < n) {
		ssize_t w = write(fd, text + off, n - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			bad = 1;
			break;
		}
		off += (size_t)w;
	}
	if (!bad && (uid != (uid_t)-1 || gid != (gid_t)-1) && fchown(fd, uid, gid))
		bad = 2;
	if (!bad && fsync(fd))
		bad = 1;
	int err = errno;
	if (close(fd) && !bad) {
		bad = 1;
		err = errno;
	}
	if (bad) {
		unlink(path);
		return apenet_err_set(e, APENET_EIO, "%s: %s: %s", path, bad == 2 ? "cannot give it to its owner" : "write",
				      strerror(err));
	}
	return 0;
}

int apenet_keys_write_secret(const char *path, const uint8_t secret[APENET_SITE_SECRET_LEN], uid_t uid, gid_t gid,
			     struct apenet_err *e)
{
	char hex[2 * APENET_SITE_SECRET_LEN + 1], text[512];
	tohex(secret, APENET_SITE_SECRET_LEN, hex);
	snprintf(text, sizeof(text),
		 "# apenet site secret (apenet keys init): every node's SNMPv3 keys derive from it.\n"
		 "# Keep it on the supervisors only, readable by their user alone (docs/security.md).\n"
		 "secret: %s\n",
		 hex);
	int r = write_new(path, text, uid, gid, e);
	OPENSSL_cleanse(hex, sizeof(hex));
	OPENSSL_cleanse(text, sizeof(text));
	return r;
}

int apenet_keys_write_node(const char *path, const struct apenet_node_key *k, uid_t uid, gid_t gid,
			   struct apenet_err *e)
{
	char a[2 * APENET_USM_KEY_LEN + 1], p[2 * APENET_USM_KEY_LEN + 1], text[768];
	tohex(k->auth_ku, APENET_USM_KEY_LEN, a);
	tohex(k->priv_ku, APENET_USM_KEY_LEN, p);
	snprintf(text, sizeof(text),
		 "# apenet node key (apenet keys node): the SNMPv3 keys of node %u,%u,%u's agent.\n"
		 "# They speak as this node only; readable by the agent's user alone (docs/security.md).\n"
		 "user: %s\nauth: sha256:%s\npriv: aes128:%s\n",
		 k->xyz[0], k->xyz[1], k->xyz[2], k->user, a, p);
	int r = write_new(path, text, uid, gid, e);
	OPENSSL_cleanse(a, sizeof(a));
	OPENSSL_cleanse(p, sizeof(p));
	OPENSSL_cleanse(text, sizeof(text));
	return r;
}

int apenet_keys_read_engine(const char *path, uint8_t engine[APENET_USM_ENGINE_MAX], size_t *len, long *boots,
			    struct apenet_err *e)
{
	struct kf k;
	struct stat st;
	char *key, *val, *end;
	int r, have = 0;
	if (stat(path, &st) && errno == ENOENT)
		return 1;
	if (kf_open(&k, path, e))
		return -1;
	while ((r = kf_next(&k, &key, &val, e)) == 1) {
		size_t n = strlen(val) / 2;
		if (!strcmp(key, "engine_id") && n >= 5 && n <= APENET_USM_ENGINE_MAX && !unhex(val, engine, n)) {
			*len = n;
			have |= 1;
		} else if (!strcmp(key, "boots") && (errno = 0, *boots = strtol(val, &end, 10), !errno && *val &&
							  !*end && *boots >= 0 && *boots < 0x7fffffff)) {
			have |= 2;
		} else {
			r = apenet_err_set(e, APENET_EINVAL,
					   "%s:%u: not 'engine_id: HEX' (5..%d bytes) or 'boots: N' (remove the file for a new "
					   "engine ID: agents learn it again)",
					   path, k.line, APENET_USM_ENGINE_MAX);
			break;
		}
	}
	kf_close(&k);
	if (r >= 0 && have != 3)
		r = apenet_err_set(e, APENET_EINVAL, "%s: no '%s:' line", path, have & 1 ? "boots" : "engine_id");
	return r < 0 ? -1 : 0;
}

int apenet_keys_write_engine(const char *path, const uint8_t *engine, size_t len, long boots, struct apenet_err *e)
{
	char hex[2 * APENET_USM_ENGINE_MAX + 1], text[256], tmp[APENET_PATH_MAX + 8];
	if (len > APENET_USM_ENGINE_MAX || snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return apenet_err_set(e, APENET_EINVAL, "%s: engine ID or path too long", path);
	tohex(engine, len, hex);
	snprintf(text, sizeof(text), "# the SNMPv3 engine of this supervisor (docs/security.md)\nengine_id: %s\nboots: %ld\n",
		 hex, boots);
	unlink(tmp);
	if (write_new(tmp, text, (uid_t)-1, (gid_t)-1, e))
		return -1;
	if (rename(tmp, path)) {
		int err = errno;
		unlink(tmp);
		return apenet_err_set(e, APENET_EIO, "%s: %s", path, strerror(err));
	}
	return 0;
}
