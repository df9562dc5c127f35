/*
 * apenet keys init [--out FILE] [--owner USER] [--config FILE]
 * apenet keys node X,Y,Z [--site FILE] [--out FILE] [--owner USER] [--config FILE]
 * apenet keys all [--site FILE] [--dims XxYxZ] [--dir DIR] [--owner USER] [--config FILE]
 *
 * The SNMPv3 keys (docs/security.md): `init` makes the site secret (the
 * supervisors keep it: supervisor.site_key), `node` one node's key file
 * (its agent keeps it: supervisors.key_file), `all` every node's of the
 * torus as DIR/node-X,Y,Z.key, to copy each to its node.  Files are new
 * (an existing one is never overwritten), 0600, and given to --owner (by
 * default, when run as root, the config's agent.user if that user exists).
 */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apenet/config.h"
#include "apenet/keys.h"
#include "cli.h"

static int owner_of(const char *name, const struct apenet_config *cfg, uid_t *uid, gid_t *gid)
{
	*uid = (uid_t)-1;
	*gid = (gid_t)-1;
	if (!name) {
		if (geteuid() != 0 || !cfg->agent.user[0] || !getpwnam(cfg->agent.user))
			return 0;
		name = cfg->agent.user;
	}
	struct passwd *pw = getpwnam(name);
	if (!pw)
		return cli_usage_error("keys", "--owner '%s': no such user", name);
	*uid = pw->pw_uid;
	*gid = pw->pw_gid;
	return 0;
}

static void wrote(struct apenet_out *o, const char *path, const char *what, const struct apenet_node_key *k)
{
	apenet_out_obj_begin(o, NULL);
	apenet_out_str(o, "file", path);
	apenet_out_str(o, "kind", what);
	if (k) {
		cli_out_xyz(o, "node", k->xyz);
		apenet_out_str(o, "user", k->user);
	}
	apenet_out_obj_end(o);
}

int cmd_keys(struct cli *c)
{
	const char *out = NULL, *owner = NULL, *site = NULL, *dims_s = NULL, *dir = NULL, *config = NULL;
	const struct cli_opt opts[] = {
		{ "--out", &out, NULL },   { "--owner", &owner, NULL }, { "--site", &site, NULL },
		{ "--dims", &dims_s, NULL }, { "--dir", &dir, NULL },   { "--config", &config, NULL },
		{ NULL, NULL, NULL },
	};
	const char *pos[2];
	int npos;
	if (cli_parse(c, "keys", opts, pos, 2, &npos))
		return CLI_EXIT_ERROR;
	const char *what = npos ? pos[0] : "";
	if (strcmp(what, "init") && strcmp(what, "node") && strcmp(what, "all"))
		return cli_usage_error("keys", "say init, node X,Y,Z or all");
	if (npos != (strcmp(what, "node") ? 1 : 2))
		return cli_usage_error("keys", strcmp(what, "node") ? "%s takes no node" : "node needs X,Y,Z", what);
	if (strcmp(what, "init") && out && !strcmp(what, "all"))
		return cli_usage_error("keys", "all writes into --dir, not --out");
	if (!strcmp(what, "init") && (site || dims_s || dir))
		return cli_usage_error("keys", "init makes the secret: --out FILE, not --site, --dims or --dir");
	struct apenet_config cfg;
	int rc = cli_config("keys", config, &cfg);
	if (rc)
		return rc;
	uid_t uid;
	gid_t gid;
	if (owner_of(owner, &cfg, &uid, &gid)) {
		apenet_config_free(&cfg);
		return CLI_EXIT_ERROR;
	}
	char site_path[APENET_PATH_MAX];
	snprintf(site_path, sizeof(site_path), "%s", site ? site : cfg.svr.site_key);
	unsigned dims[3] = { cfg.cl.dims[0], cfg.cl.dims[1], cfg.cl.dims[2] };
	int have_dims = cfg.cl.have;
	apenet_config_free(&cfg);

	struct apenet_err e = { 0 };
	uint8_t secret[APENET_SITE_SECRET_LEN];
	struct apenet_out *o = apenet_out_new(c->fmt, stdout, "keys");
	apenet_out_arr_begin(o, "written");
	rc = CLI_EXIT_OK;
	if (!strcmp(what, "init")) {
		const char *path = out ? out : site_path;
		if (apenet_keys_new_secret(secret, &e) || apenet_keys_write_secret(path, secret, uid, gid, &e))
			rc = -1;
		else
			wrote(o, path, "site secret", NULL);
	} else if (apenet_keys_read_secret(site_path, secret, &e)) {
		rc = -1;
	} else if (!strcmp(what, "node")) {
		unsigned xyz[3];
		char tail, path[APENET_PATH_MAX];
		struct apenet_node_key k;
		if (sscanf(pos[1], "%u,%u,%u%c", &xyz[0], &xyz[1], &xyz[2], &tail) != 3) {
			apenet_out_discard(o);
			explicit_bzero(secret, sizeof(secret));
			return cli_usage_error("keys", "'%s' is not X,Y,Z", pos[1]);
		}
		snprintf(path, sizeof(path), "%s", out ? out : "");
		if (!out)
			snprintf(path, sizeof(path), "node-%u,%u,%u.key", xyz[0], xyz[1], xyz[2]);
		if (apenet_keys_node(secret, xyz[0], xyz[1], xyz[2], &k, &e) ||
		    apenet_keys_write_node(path, &k, uid, gid, &e))
			rc = -1;
		else
			wrote(o, path, "node key", &k);
		explicit_bzero(&k, sizeof(k));
	} else {
		char x;
		if (dims_s && (sscanf(dims_s, "%ux%ux%u%c", &dims[0], &dims[1], &dims[2], &x) != 3 || !dims[0] ||
			       !dims[1] || !dims[2] || dims[0] > 256 || dims[1] > 256 || dims[2] > 256)) {
			apenet_out_discard(o);
			explicit_bzero(secret, sizeof(secret));
			return cli_usage_error("keys", "--dims '%s' is not XxYxZ (each 1..256)", dims_s);
		}
		if (!dims_s && !have_dims) {
			apenet_out_discard(o);
			explicit_bzero(secret, sizeof(secret));
			return cli_usage_error("keys", "all needs the torus: --dims XxYxZ, or a config with a cluster section");
		}
		const char *d = dir ? dir : ".";
		if (mkdir(d, 0700) && errno != EEXIST) {
			rc = apenet_err_set(&e, APENET_EIO, "%s: %s", d, strerror(errno));
		}
		for (unsigned z = 0; !rc && z < dims[2]; z++)
			for (unsigned y = 0; !rc && y < dims[1]; y++)
				for (unsigned xx = 0; !rc && xx < dims[0]; xx++) {
					char path[APENET_PATH_MAX];
					struct apenet_node_key k;
					snprintf(path, sizeof(path), "%s/node-%u,%u,%u.key", d, xx, y, z);
					if (apenet_keys_node(secret, xx, y, z, &k, &e) ||
					    apenet_keys_write_node(path, &k, uid, gid, &e))
						rc = -1;
					else
						wrote(o, path, "node key", &k);
					explicit_bzero(&k, sizeof(k));
				}
	}
	explicit_bzero(secret, sizeof(secret));
	apenet_out_arr_end(o);
	if (rc) {
		apenet_out_discard(o);
		return cli_input_error(c, "keys", "BAD_KEYS", "%s", e.msg);
	}
	return apenet_out_finish(o) ? CLI_EXIT_ERROR : CLI_EXIT_OK;
}
