// Shims for libedit's variadic el_set/el_get and history calls, which Swift cannot call.
#include <stdio.h>
#include <histedit.h>

typedef const char *(*cedit_prompt_fn)(EditLine *);
typedef unsigned char (*cedit_key_fn)(EditLine *, int);
typedef unsigned char (*cedit_complete_fn)(EditLine *, int);

static inline int cedit_set_prompt(EditLine *el, cedit_prompt_fn fn) { return el_set(el, EL_PROMPT, fn); }
static inline int cedit_set_editor(EditLine *el, const char *mode) { return el_set(el, EL_EDITOR, mode); }
static inline int cedit_set_signal(EditLine *el, int on) { return el_set(el, EL_SIGNAL, on); }
static inline int cedit_set_hist(EditLine *el, History *h) { return el_set(el, EL_HIST, history, h); }
static inline int cedit_add_fn(EditLine *el, const char *name, const char *help, cedit_key_fn fn) { return el_set(el, EL_ADDFN, name, help, fn); }
static inline int cedit_bind(EditLine *el, const char *key, const char *fn) { return el_set(el, EL_BIND, key, fn, NULL); }
static inline int cedit_set_clientdata(EditLine *el, void *data) { return el_set(el, EL_CLIENTDATA, data); }
static inline void *cedit_get_clientdata(EditLine *el) { void *d = NULL; el_get(el, EL_CLIENTDATA, &d); return d; }
static inline int cedit_source(EditLine *el) { return el_source(el, NULL); }

static inline int cedit_history_setsize(History *h, HistEvent *ev, int size) { return history(h, ev, H_SETSIZE, size); }
static inline int cedit_history_setunique(History *h, HistEvent *ev, int on) { return history(h, ev, H_SETUNIQUE, on); }
static inline int cedit_history_enter(History *h, HistEvent *ev, const char *line) { return history(h, ev, H_ENTER, line); }
static inline int cedit_history_load(History *h, HistEvent *ev, const char *path) { return history(h, ev, H_LOAD, path); }
static inline int cedit_history_save(History *h, HistEvent *ev, const char *path) { return history(h, ev, H_SAVE, path); }

// Swift 6 treats the C globals stdin/stdout/stderr as unsafe shared state; these return them.
static inline FILE *cedit_stdin(void) { return stdin; }
static inline FILE *cedit_stdout(void) { return stdout; }
static inline FILE *cedit_stderr(void) { return stderr; }

// Pseudo-terminal calls (hidden behind _XOPEN_SOURCE in glibc's headers), for the REPL's
// terminal tests.
extern int posix_openpt(int flags);
extern int grantpt(int fd);
extern int unlockpt(int fd);
extern char *ptsname(int fd);
static inline int cedit_openpt(int flags) { return posix_openpt(flags); }
static inline int cedit_grantpt(int fd) { return grantpt(fd); }
static inline int cedit_unlockpt(int fd) { return unlockpt(fd); }
static inline char *cedit_ptsname(int fd) { return ptsname(fd); }
static inline short cedit_spawn_setsid(void) { return 0x80; } /* POSIX_SPAWN_SETSID (glibc) */

// Keeps Ctrl-C as a key while editing (no SIGINT), so the editor can return at once.
static inline int cedit_keep_ctrl_c_as_key(EditLine *el) { return el_set(el, EL_SETTY, "-d", "-isig", NULL); }
