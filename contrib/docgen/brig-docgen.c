/* SPDX-License-Identifier: Apache-2.0 */
/*
 * brig-docgen: brig's man pages and shell completions, written from the
 * command table (runtime/cmd/table.c) that `brig --help` prints, so that
 * neither can drift from the flags brig takes.
 *
 *   brig-docgen man DIR   write DIR/brig.8 and DIR/brig-<command>.8
 *   brig-docgen bash      print a bash completion script (`complete -F _brig`)
 *   brig-docgen zsh       print a zsh completion function (#compdef brig)
 *   brig-docgen list      print the command names, one a line
 *
 * The pages are dated by $SOURCE_DATE_EPOCH when it is set (reproducible
 * builds), else by the current day.  Exit status: 0 on success, 1 when a
 * page cannot be written or the table holds a name no shell script could
 * quote, 2 on a usage error.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/cmd.h"

static const char *prog = "brig-docgen";

/* --help and -h: every command takes them, no table lists them. */
static const struct brig_option help_option = {
	"help", 'h', BRIG_OPT_BOOL, NULL, "show help", NULL
};

/* ------------------------------------------------------------- the data */

/* Names end up unquoted in troff and inside single quotes in shell code. */
static bool plain_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) && *s != '-')
			return false;
	return true;
}

static bool check_options(const char *where, const struct brig_option *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!plain_name(t[i].name) ||
		    (t[i].short_name && !isalnum((unsigned char)t[i].short_name))) {
			fprintf(stderr, "%s: %s: option \"%s\": not a plain name\n", prog, where,
			        t[i].name);
			return false;
		}
	}
	return true;
}

static bool check_table(void)
{
	if (!check_options("global options", brig_global_options, brig_n_global_options))
		return false;
	for (size_t i = 0; i < brig_n_commands; i++) {
		const struct brig_command *c = brig_commands[i];

		if (!plain_name(c->name)) {
			fprintf(stderr, "%s: command \"%s\": not a plain name\n", prog, c->name);
			return false;
		}
		if (!check_options(c->name, c->options, c->n_options))
			return false;
	}
	return true;
}

static bool contains(const char *s, const char *part)
{
	return s && strstr(s, part);
}

/* @word is a word of the placeholder @arg: "DIR" is one of "[DIR]", not of
 * "PROFILE". */
static bool has_word(const char *arg, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = arg; p && (p = strstr(p, word)); p++)
		if ((p == arg || !isalnum((unsigned char)p[-1])) && !isalnum((unsigned char)p[n]))
			return true;
	return false;
}

static bool takes_value(const struct brig_option *o)
{
	return o->type != BRIG_OPT_BOOL;
}

enum value_kind {
	VALUE_NONE,  /* free text: nothing to offer */
	VALUE_FILE,  /* a file name */
	VALUE_DIR,   /* a directory name */
	VALUE_WORDS, /* one of the words of "a|b|c" */
};

/* What the value of @o is, for completion. */
static enum value_kind value_kind(const struct brig_option *o)
{
	static const char *const file_names[] = { "log", "pid-file", "console-socket", "process" };
	const char *a = o->arg ? o->arg : "";

	if (!takes_value(o))
		return VALUE_NONE;
	if (has_word(a, "DIR") || !strcmp(o->name, "bundle") || !strcmp(o->name, "root"))
		return VALUE_DIR;
	if (has_word(a, "FILE") || has_word(a, "PATH") || has_word(a, "SOCKET"))
		return VALUE_FILE;
	for (size_t i = 0; i < ARRAY_SIZE(file_names); i++)
		if (!strcmp(o->name, file_names[i]))
			return VALUE_FILE;
	if (strchr(a, '|') && strspn(a, "abcdefghijklmnopqrstuvwxyz0123456789-|") == strlen(a))
		return VALUE_WORDS;
	return VALUE_NONE;
}

/* The words of a VALUE_WORDS placeholder, separated by spaces. */
static void put_words(FILE *f, const char *arg)
{
	for (; *arg; arg++)
		fputc(*arg == '|' ? ' ' : *arg, f);
}

static bool takes_container_id(const struct brig_command *c)
{
	return contains(c->args_usage, "container-id");
}

/* ---------------------------------------------------------------- troff */

/*
 * troff text from @n bytes of @s, as part of one output line (@line_start:
 * it begins the line).  A backslash becomes \e, a '.' or '\'' that would
 * begin the line goes behind \&, `code` is set in bold (*@bold carries an
 * unclosed quote to the next line), and the '-' of a word that looks like
 * an option or a negative number ("--bundle", "-1", "'-1'") becomes \-, so
 * that it renders as a minus one can copy; "read-only" keeps its hyphen.
 */
static void troff_text(FILE *f, const char *s, size_t n, bool *bold, bool line_start)
{
	bool minus = false, word_start = true;

	if (line_start && n && (s[0] == '.' || s[0] == '\''))
		fputs("\\&", f);
	if (line_start && *bold)
		fputs("\\fB", f);
	for (size_t i = 0; i < n; i++) {
		char ch = s[i];

		if (ch == ' ' || ch == '\t') {
			word_start = true;
			fputc(ch, f);
			continue;
		}
		if (word_start) {
			/* an option-like word: a '-' first or after punctuation */
			minus = false;
			for (size_t j = i; j < n && s[j] != ' ' && s[j] != '\t'; j++)
				if (s[j] == '-' && (j == i || !isalnum((unsigned char)s[j - 1])))
					minus = true;
			word_start = false;
		}
		if (ch == '\\')
			fputs("\\e", f);
		else if (ch == '-' && minus)
			fputs("\\-", f);
		else if (ch == '`') {
			*bold = !*bold;
			fputs(*bold ? "\\fB" : "\\fR", f);
		} else
			fputc(ch, f);
	}
}

static void troff_str(FILE *f, const char *s, bool line_start)
{
	bool bold = false;

	troff_text(f, s, strlen(s), &bold, line_start);
	if (bold)
		fputs("\\fR", f);
}

/* A name (plain_name) with every '-' a minus: brig\-create, no\-pivot. */
static void troff_name(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '-')
			fputs("\\-", f);
		else
			fputc(*s, f);
	}
}

static void troff_upper_name(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '-')
			fputs("\\-", f);
		else
			fputc(toupper((unsigned char)*s), f);
	}
}

/*
 * Paragraphs as `brig CMD --help` shows them: lines indented by three
 * spaces and wrapped for a terminal, a blank line between paragraphs.
 * Each line becomes a text line of its own (troff fills them again).
 */
static void troff_paragraphs(FILE *f, const char *text)
{
	bool bold = false, blank = false, first = true;
	const char *p = text;

	while (*p) {
		const char *nl = strchr(p, '\n');
		const char *end = nl ? nl : p + strlen(p);
		const char *s = p, *e = end;

		while (s < e && (*s == ' ' || *s == '\t'))
			s++;
		while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
			e--;
		if (s == e) {
			blank = true;
		} else {
			if (blank && !first)
				fputs(".PP\n", f);
			troff_text(f, s, (size_t)(e - s), &bold, true);
			if (bold)
				fputs("\\fR", f);
			fputc('\n', f);
			blank = false;
			first = false;
		}
		p = nl ? nl + 1 : end;
	}
}

/* .TP: "\fB\-\-name\fR \fIARG\fR, \fB\-x\fR", then the help and default. */
static void troff_option(FILE *f, const struct brig_option *o)
{
	fputs(".TP\n\\fB\\-\\-", f);
	troff_name(f, o->name);
	fputs("\\fR", f);
	if (o->arg) {
		fputs(" \\fI", f);
		troff_str(f, o->arg, false);
		fputs("\\fR", f);
	}
	if (o->short_name)
		fprintf(f, ", \\fB\\-%c\\fR", o->short_name);
	fputc('\n', f);
	troff_str(f, o->help, true);
	if (o->def) {
		fputs(" (default: ", f);
		troff_str(f, o->def, false);
		fputc(')', f);
	}
	if (o->type == BRIG_OPT_LIST)
		fputs("; may be given more than once", f);
	if (o->def || o->type == BRIG_OPT_LIST || !*o->help || o->help[strlen(o->help) - 1] != '.')
		fputc('.', f);
	fputc('\n', f);
}

static void troff_header(FILE *f, const char *cmd, const char *date)
{
	fputs(".\\\" Generated by brig-docgen from brig's command table; do not edit.\n"
	      ".TH BRIG",
	      f);
	if (cmd) {
		fputs("\\-", f);
		troff_upper_name(f, cmd);
	}
	fprintf(f, " 8 \"%s\" \"brig %s\" \"System Manager's Manual\"\n", date, PACKAGE_VERSION);
}

static void man_brig(FILE *f, const char *date)
{
	troff_header(f, NULL, date);
	fputs(".SH NAME\n"
	      "brig \\- an OCI runtime for short, ephemeral, untrusted jobs\n"
	      ".SH SYNOPSIS\n"
	      ".B brig\n"
	      "[\\fIglobal options\\fR] \\fIcommand\\fR [\\fIcommand options\\fR] "
	      "[\\fIarguments\\fR...]\n"
	      ".SH DESCRIPTION\n"
	      ".B brig\n"
	      "is an OCI runtime: it creates and runs containers from OCI bundles (a\n"
	      "root filesystem and a \\fIconfig.json\\fR) as version 1.3 of the OCI\n"
	      "runtime specification describes them.\n"
	      "It is made for short, ephemeral, untrusted jobs.\n"
	      ".PP\n"
	      ".B brig\n"
	      "takes the command line of \\fBrunc\\fR(8): its commands, flags, exit\n"
	      "statuses and error wording, so that the engines that drive runc drive\n"
	      "brig unchanged: Podman (\\fBpodman \\-\\-runtime /usr/sbin/brig\\fR),\n"
	      "containerd's runc v2 shim (its \\fBBinaryName\\fR option), and Kubernetes\n"
	      "through a \\fBRuntimeClass\\fR.\n"
	      ".PP\n"
	      "Global options come before the command, the command's options after it.\n"
	      "A long option may be written \\fB\\-\\-name value\\fR, "
	      "\\fB\\-\\-name=value\\fR or \\fB\\-name value\\fR;\n"
	      "a boolean option takes no value unless written \\fB\\-\\-name=false\\fR.\n"
	      ".SH COMMANDS\n",
	      f);
	for (size_t i = 0; i < brig_n_commands; i++) {
		const struct brig_command *c = brig_commands[i];

		fputs(".TP\n.B ", f);
		troff_name(f, c->name);
		fputc('\n', f);
		troff_str(f, c->summary, true);
		fputs("; see \\fBbrig\\-", f);
		troff_name(f, c->name);
		fputs("\\fR(8).\n", f);
	}
	fputs(".SH GLOBAL OPTIONS\n", f);
	for (size_t i = 0; i < brig_n_global_options; i++)
		troff_option(f, &brig_global_options[i]);
	troff_option(f, &help_option);
	fputs(".SH EXIT STATUS\n"
	      ".TP\n.B 0\nThe command succeeded.\n"
	      ".TP\n.B 1\n"
	      "A runtime error: one line on standard error (and in the log) says why.\n"
	      ".TP\n.B 2\n"
	      "A usage error: an unknown command or option, a missing or extra argument,\n"
	      "an invalid option value.\n"
	      ".PP\n"
	      "In the foreground, \\fBbrig run\\fR (and \\fBbrig exec\\fR) exit with the\n"
	      "status of the container's process instead, 128+\\fIN\\fR when signal\n"
	      "\\fIN\\fR killed it.\n"
	      ".SH FILES\n"
	      ".TP\n.I /run/brig\n"
	      "The default state root (\\fB\\-\\-root\\fR): a directory per container.\n"
	      "It should be on a tmpfs.\n"
	      ".TP\n.I $XDG_RUNTIME_DIR/brig\n"
	      "The default state root of a user other than root, when\n"
	      ".B XDG_RUNTIME_DIR\nis set.\n"
	      ".SH ENVIRONMENT\n"
	      ".TP\n.B XDG_RUNTIME_DIR\n"
	      "For a user other than root, the default \\fB\\-\\-root\\fR is\n"
	      "\\fI$XDG_RUNTIME_DIR/brig\\fR, as for runc.\n"
	      ".SH SEE ALSO\n",
	      f);
	for (size_t i = 0; i < brig_n_commands; i++) {
		fputs(".BR brig\\-", f);
		troff_name(f, brig_commands[i]->name);
		fputs(" (8),\n", f);
	}
	fputs(".BR runc (8),\n.BR podman (1),\n.BR containerd (8)\n", f);
}

static void man_command(FILE *f, const struct brig_command *c, const char *date)
{
	troff_header(f, c->name, date);
	fputs(".SH NAME\nbrig\\-", f);
	troff_name(f, c->name);
	fputs(" \\- ", f);
	troff_str(f, c->summary, false);
	fputs("\n.SH SYNOPSIS\n\\fBbrig\\fR [\\fIglobal options\\fR] \\fB", f);
	troff_name(f, c->name);
	fputs("\\fR [\\fIcommand options\\fR]", f);
	if (c->args_usage) {
		fputs(" \\fI", f);
		troff_str(f, c->args_usage, false);
		fputs("\\fR", f);
	}
	fputs("\n.SH DESCRIPTION\n", f);
	if (c->description)
		troff_paragraphs(f, c->description);
	else
		troff_paragraphs(f, c->summary);
	fputs(".SH OPTIONS\n", f);
	for (size_t i = 0; i < c->n_options; i++)
		troff_option(f, &c->options[i]);
	troff_option(f, &help_option);
	fputs(".PP\nThe global options are described in\n.BR brig (8).\n"
	      ".SH SEE ALSO\n.BR brig (8)\n",
	      f);
}

static int write_page(const char *dir, const char *cmd, const struct brig_command *c,
                      const char *date)
{
	char path[4096];
	FILE *f;
	int n;

	if (cmd)
		n = snprintf(path, sizeof(path), "%s/brig-%s.8", dir, cmd);
	else
		n = snprintf(path, sizeof(path), "%s/brig.8", dir);
	if (n < 0 || (size_t)n >= sizeof(path)) {
		fprintf(stderr, "%s: %s: path too long\n", prog, dir);
		return -1;
	}
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "%s: open \"%s\": %s\n", prog, path, strerror(errno));
		return -1;
	}
	if (c)
		man_command(f, c, date);
	else
		man_brig(f, date);
	if (ferror(f) | fclose(f)) {
		fprintf(stderr, "%s: write \"%s\": %s\n", prog, path, strerror(errno));
		return -1;
	}
	return 0;
}

/* The date of the pages: $SOURCE_DATE_EPOCH, else today (UTC). */
static void page_date(char *buf, size_t size)
{
	const char *sde = getenv("SOURCE_DATE_EPOCH");
	time_t t = time(NULL);
	struct tm tm;

	if (sde && *sde) {
		char *end;
		long long v;

		errno = 0;
		v = strtoll(sde, &end, 10);
		if (!errno && !*end && v >= 0)
			t = (time_t)v;
	}
	if (!gmtime_r(&t, &tm) || !strftime(buf, size, "%Y-%m-%d", &tm))
		snprintf(buf, size, "%s", "1970-01-01");
}

static int gen_man(const char *dir)
{
	char date[32];

	page_date(date, sizeof(date));
	if (write_page(dir, NULL, NULL, date) < 0)
		return -1;
	for (size_t i = 0; i < brig_n_commands; i++)
		if (write_page(dir, brig_commands[i]->name, brig_commands[i], date) < 0)
			return -1;
	return 0;
}

/* ----------------------------------------------------------------- bash */

/* The long and short forms of every option of @t, and --help -h. */
static void bash_option_words(FILE *f, const struct brig_option *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "--%s ", t[i].name);
		if (t[i].short_name)
			fprintf(f, "-%c ", t[i].short_name);
	}
	fputs("--help -h", f);
}

/* The case arms of _brig_value for the options of @cmd ("" global). */
static void bash_value_arms(FILE *f, const char *cmd, const struct brig_option *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct brig_option *o = &t[i];

		if (!takes_value(o))
			continue;
		fprintf(f, "\t'%s --%s'", cmd, o->name);
		if (o->short_name)
			fprintf(f, " | '%s -%c'", cmd, o->short_name);
		fputs(") echo ", f);
		switch (value_kind(o)) {
		case VALUE_FILE:
			fputs("file", f);
			break;
		case VALUE_DIR:
			fputs("dir", f);
			break;
		case VALUE_WORDS:
			fputs("'words ", f);
			put_words(f, o->arg);
			fputc('\'', f);
			break;
		case VALUE_NONE:
			fputs("none", f);
			break;
		}
		fputs(" ;;\n", f);
	}
}

static const char bash_main[] =
    "# _brig: the completion function.  The words before the cursor are read as\n"
    "# brig reads them: global options, the command, then its options and\n"
    "# arguments; an option's value is the next word or follows \"=\" (a word\n"
    "# of its own when COMP_WORDBREAKS holds \"=\", as it does by default).\n"
    "_brig() {\n"
    "\tlocal cur prev opt how pre='' cmd='' root='' rest='' npos=0 i w o\n"
    "\tlocal brig=${COMP_WORDS[0]:-brig}\n"
    "\tCOMPREPLY=()\n"
    "\tcur=${COMP_WORDS[COMP_CWORD]}\n"
    "\n"
    "\ti=1\n"
    "\twhile [ \"$i\" -lt \"$COMP_CWORD\" ]; do\n"
    "\t\tw=${COMP_WORDS[i]}\n"
    "\t\ti=$((i + 1))\n"
    "\t\tif [ -z \"$rest\" ] && [ \"$w\" = -- ]; then\n"
    "\t\t\trest=1\n"
    "\t\telif [ -z \"$rest\" ] && [[ $w == -?* ]]; then\n"
    "\t\t\to=${w%%=*}\n"
    "\t\t\t[[ $o == -[!-]?* ]] && o=-$o\n"
    "\t\t\t_brig_value \"$cmd\" \"$o\" >/dev/null || continue\n"
    "\t\t\tif [[ $w == *=* ]]; then\n"
    "\t\t\t\tw=${w#*=}\n"
    "\t\t\telif [ \"${COMP_WORDS[i]}\" = = ]; then\n"
    "\t\t\t\tw=${COMP_WORDS[i + 1]}\n"
    "\t\t\t\ti=$((i + 2))\n"
    "\t\t\telse\n"
    "\t\t\t\tw=${COMP_WORDS[i]}\n"
    "\t\t\t\ti=$((i + 1))\n"
    "\t\t\tfi\n"
    "\t\t\t[ -z \"$cmd\" ] && [ \"$o\" = --root ] && root=$w\n"
    "\t\telif [ -z \"$cmd\" ]; then\n"
    "\t\t\tcmd=$w\n"
    "\t\t\trest=\n"
    "\t\telse\n"
    "\t\t\tnpos=$((npos + 1))\n"
    "\t\t\t_brig_stops \"$cmd\" && rest=1\n"
    "\t\tfi\n"
    "\tdone\n"
    "\t[[ $root == \\~/* ]] && root=$HOME/${root#\\~/}\n"
    "\n"
    "\t# the value of an option: \"--opt VALUE\", \"--opt=VALUE\", \"--opt = VALUE\"\n"
    "\tprev=\n"
    "\t[ \"$COMP_CWORD\" -ge 1 ] && prev=${COMP_WORDS[COMP_CWORD - 1]}\n"
    "\topt=\n"
    "\tif [ \"$cur\" = = ]; then\n"
    "\t\topt=$prev\n"
    "\t\tcur=\n"
    "\telif [ \"$prev\" = = ] && [ \"$COMP_CWORD\" -ge 2 ]; then\n"
    "\t\topt=${COMP_WORDS[COMP_CWORD - 2]}\n"
    "\telif [[ $cur == -?*=* ]]; then\n"
    "\t\topt=${cur%%=*}\n"
    "\t\tpre=$opt=\n"
    "\t\tcur=${cur#*=}\n"
    "\telif [[ $prev == -?* ]]; then\n"
    "\t\topt=$prev\n"
    "\tfi\n"
    "\t[[ $opt == -[!-]?* ]] && opt=-$opt\n"
    "\tif [ -z \"$rest\" ] && [ -n \"$opt\" ] && how=$(_brig_value \"$cmd\" \"$opt\"); then\n"
    "\t\tcase $how in\n"
    "\t\tfile)\n"
    "\t\t\tcompopt -o filenames 2>/dev/null\n"
    "\t\t\tmapfile -t COMPREPLY < <(compgen -f -- \"$cur\")\n"
    "\t\t\t;;\n"
    "\t\tdir)\n"
    "\t\t\tcompopt -o filenames 2>/dev/null\n"
    "\t\t\tmapfile -t COMPREPLY < <(compgen -d -- \"$cur\")\n"
    "\t\t\t;;\n"
    "\t\twords\\ *)\n"
    "\t\t\tmapfile -t COMPREPLY < <(compgen -W \"${how#words }\" -- \"$cur\")\n"
    "\t\t\t;;\n"
    "\t\tesac\n"
    "\t\t[ -n \"$pre\" ] && COMPREPLY=(\"${COMPREPLY[@]/#/$pre}\")\n"
    "\t\treturn 0\n"
    "\tfi\n"
    "\n"
    "\tif [ -z \"$rest\" ] && [[ $cur == -* ]]; then\n"
    "\t\tmapfile -t COMPREPLY < <(compgen -W \"$(_brig_options \"$cmd\")\" -- \"$cur\")\n"
    "\telif [ -z \"$cmd\" ]; then\n"
    "\t\tmapfile -t COMPREPLY < <(compgen -W \"$(_brig_options commands)\" -- \"$cur\")\n"
    "\telse\n"
    "\t\tcase $(_brig_argument \"$cmd\" \"$npos\") in\n"
    "\t\tid)\n"
    "\t\t\tmapfile -t COMPREPLY < <(compgen -W \\\n"
    "\t\t\t\t\"$(\"$brig\" ${root:+--root \"$root\"} list -q 2>/dev/null)\" -- \"$cur\")\n"
    "\t\t\t;;\n"
    "\t\tfile)\n"
    "\t\t\tcompopt -o filenames 2>/dev/null\n"
    "\t\t\tmapfile -t COMPREPLY < <(compgen -f -- \"$cur\")\n"
    "\t\t\t;;\n"
    "\t\tesac\n"
    "\tfi\n"
    "\treturn 0\n"
    "}\n"
    "\n"
    "complete -F _brig brig\n";

static void gen_bash(FILE *f)
{
	fputs("# bash completion for brig(8)                              -*- shell-script -*-\n"
	      "# Generated by brig-docgen from brig's command table; do not edit.\n"
	      "\n"
	      "# _brig_options CMD: the options of CMD, the global ones for \"\", or the\n"
	      "# command names for \"commands\".\n"
	      "_brig_options() {\n"
	      "\tcase $1 in\n"
	      "\tcommands) echo '",
	      f);
	for (size_t i = 0; i < brig_n_commands; i++)
		fprintf(f, "%s%s", i ? " " : "", brig_commands[i]->name);
	fputs("' ;;\n\t'') echo '", f);
	bash_option_words(f, brig_global_options, brig_n_global_options);
	fputs("' ;;\n", f);
	for (size_t i = 0; i < brig_n_commands; i++) {
		const struct brig_command *c = brig_commands[i];

		fprintf(f, "\t%s) echo '", c->name);
		bash_option_words(f, c->options, c->n_options);
		fputs("' ;;\n", f);
	}
	fputs("\tesac\n}\n\n"
	      "# _brig_value CMD OPTION: how the value of OPTION (of CMD, or global for\n"
	      "# \"\") is completed: file, dir, \"words W...\" or none.  Fails when OPTION\n"
	      "# takes no value.\n"
	      "_brig_value() {\n"
	      "\tcase \"$1 $2\" in\n",
	      f);
	bash_value_arms(f, "", brig_global_options, brig_n_global_options);
	for (size_t i = 0; i < brig_n_commands; i++)
		bash_value_arms(f, brig_commands[i]->name, brig_commands[i]->options,
		                brig_commands[i]->n_options);
	fputs("\t*) return 1 ;;\n\tesac\n}\n\n"
	      "# _brig_stops CMD: the first argument of CMD ends its options.\n"
	      "_brig_stops() {\n\tcase $1 in\n",
	      f);
	{
		bool any = false;

		for (size_t i = 0; i < brig_n_commands; i++) {
			if (brig_commands[i]->mode != BRIG_PARSE_STOP)
				continue;
			fprintf(f, "%s%s", any ? " | " : "\t", brig_commands[i]->name);
			any = true;
		}
		if (any)
			fputs(") return 0 ;;\n", f);
	}
	fputs("\t*) return 1 ;;\n\tesac\n}\n\n"
	      "# _brig_argument CMD N: what argument N (from 0) of CMD is: id (a\n"
	      "# container id), file, or none.\n"
	      "_brig_argument() {\n\tcase $1 in\n",
	      f);
	for (size_t i = 0; i < brig_n_commands; i++) {
		const struct brig_command *c = brig_commands[i];

		fprintf(f, "\t%s) ", c->name);
		if (takes_container_id(c))
			fputs("[ \"$2\" -eq 0 ] && echo id || ", f);
		if (c->max_args < 0)
			fputs("echo file", f);
		else
			fputs("echo none", f);
		fputs(" ;;\n", f);
	}
	fputs("\t*) echo none ;;\n\tesac\n}\n\n", f);
	fputs(bash_main, f);
}

/* ------------------------------------------------------------------ zsh */

/*
 * Text for a single-quoted zsh word that _arguments or _describe reads:
 * @special (characters such as "[]:") behind a backslash, each ' as '\''.
 */
static void zsh_text(FILE *f, const char *s, const char *special)
{
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", f);
		else if (*s == '\\' || strchr(special, *s))
			fprintf(f, "\\%c", *s);
		else
			fputc(*s, f);
	}
}

/* One _arguments spec per option of @t, and --help, each a line ending in
 * " \\\n". */
static void zsh_option_specs(FILE *f, const struct brig_option *t, size_t n, const char *indent)
{
	for (size_t i = 0; i <= n; i++) {
		const struct brig_option *o = i < n ? &t[i] : &help_option;
		bool list = o->type == BRIG_OPT_LIST, val = takes_value(o);

		fputs(indent, f);
		if (list)
			fputs("'*'", f);
		if (o->short_name) {
			if (!list)
				fprintf(f, "'(-%c --%s)'", o->short_name, o->name);
			fprintf(f, "{-%c%s,--%s%s}'", o->short_name, val ? "+" : "", o->name,
			        val ? "=" : "");
		} else {
			fprintf(f, "'--%s%s", o->name, val ? "=" : "");
		}
		fputc('[', f);
		zsh_text(f, o->help, "[]");
		if (o->def) {
			fputs(" (default: ", f);
			zsh_text(f, o->def, "[]");
			fputc(')', f);
		}
		fputc(']', f);
		if (val) {
			fputc(':', f);
			zsh_text(f, o->arg ? o->arg : "value", ":");
			fputc(':', f);
			switch (value_kind(o)) {
			case VALUE_FILE:
				fputs("_files", f);
				break;
			case VALUE_DIR:
				fputs("_files -/", f);
				break;
			case VALUE_WORDS:
				fputc('(', f);
				put_words(f, o->arg);
				fputc(')', f);
				break;
			case VALUE_NONE:
				fputc(' ', f);
				break;
			}
		}
		fputs("' \\\n", f);
	}
}

static void gen_zsh(FILE *f)
{
	fputs("#compdef brig\n"
	      "# zsh completion for brig(8).\n"
	      "# Generated by brig-docgen from brig's command table; do not edit.\n"
	      "\n"
	      "# The containers under the --root given before the command.\n"
	      "_brig_containers() {\n"
	      "\tlocal -a ids\n"
	      "\tids=(${(f)\"$(${~brig_bin:-brig} ${brig_root:+--root} $brig_root list -q "
	      "2>/dev/null)\"})\n"
	      "\t_wanted containers expl container compadd -a ids\n"
	      "}\n"
	      "\n"
	      "_brig() {\n"
	      "\tlocal curcontext=$curcontext state line brig_bin=$words[1] brig_root\n"
	      "\tlocal ret=1\n"
	      "\ttypeset -A opt_args\n"
	      "\tlocal -a commands\n"
	      "\n"
	      "\tcommands=(\n",
	      f);
	for (size_t i = 0; i < brig_n_commands; i++) {
		fprintf(f, "\t\t'%s:", brig_commands[i]->name);
		zsh_text(f, brig_commands[i]->summary, "");
		fputs("'\n", f);
	}
	fputs("\t)\n\t_arguments -C \\\n", f);
	zsh_option_specs(f, brig_global_options, brig_n_global_options, "\t\t");
	fputs("\t\t'(-): :->command' \\\n"
	      "\t\t'(-)*:: :->argument' && ret=0\n"
	      "\n"
	      "\tcase $state in\n"
	      "\tcommand)\n"
	      "\t\t_describe -t commands 'brig command' commands && ret=0\n"
	      "\t\t;;\n"
	      "\targument)\n"
	      "\t\tbrig_root=${(Q)opt_args[--root]}\n"
	      "\t\tcurcontext=${curcontext%:*:*}:brig-$words[1]:\n"
	      "\t\tcase $words[1] in\n",
	      f);
	for (size_t i = 0; i < brig_n_commands; i++) {
		const struct brig_command *c = brig_commands[i];

		fprintf(f, "\t\t%s)\n\t\t\t_arguments \\\n", c->name);
		zsh_option_specs(f, c->options, c->n_options, "\t\t\t\t");
		if (takes_container_id(c))
			fputs("\t\t\t\t'1:container:_brig_containers' \\\n", f);
		if (contains(c->args_usage, "<command>"))
			fputs("\t\t\t\t'*:::command:_normal' \\\n", f);
		else if (c->max_args < 0 || c->max_args > 1)
			fputs("\t\t\t\t'*:argument:_default' \\\n", f);
		fputs("\t\t\t\t&& ret=0\n\t\t\t;;\n", f);
	}
	fputs("\t\tesac\n"
	      "\t\t;;\n"
	      "\tesac\n"
	      "\treturn ret\n"
	      "}\n"
	      "\n"
	      "# Autoloaded from $fpath (compinit) it is the completion function;\n"
	      "# sourced, it registers itself.\n"
	      "if [ \"$funcstack[1]\" = _brig ]; then\n"
	      "\t_brig \"$@\"\n"
	      "else\n"
	      "\tcompdef _brig brig\n"
	      "fi\n",
	      f);
}

/* ----------------------------------------------------------------- main */

static int usage(void)
{
	fprintf(stderr, "usage: %s man DIR | bash | zsh | list\n", prog);
	return 2;
}

static int flush_stdout(void)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s: write: %s\n", prog, strerror(errno));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage();
	if (!check_table())
		return 1;
	if (!strcmp(argv[1], "man")) {
		if (argc != 3)
			return usage();
		return gen_man(argv[2]) < 0 ? 1 : 0;
	}
	if (argc != 2)
		return usage();
	if (!strcmp(argv[1], "bash"))
		gen_bash(stdout);
	else if (!strcmp(argv[1], "zsh"))
		gen_zsh(stdout);
	else if (!strcmp(argv[1], "list"))
		for (size_t i = 0; i < brig_n_commands; i++)
			printf("%s\n", brig_commands[i]->name);
	else
		return usage();
	return flush_stdout();
}
