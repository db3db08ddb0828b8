/*
 * irstats._ingest: the compiled fast path from a TREC run file to its ranked grades.
 *
 * One call takes the bytes of one run and returns, per qrels topic, the grades of the
 * documents in trec_eval's ranking order (score descending, then docno descending as
 * bytes), cut at depth M, with the engine's codes (UNJUDGED for a document without a qrels
 * line, the qrels line's code otherwise). It parses, looks grades up and sorts without
 * the GIL, so two runs are read on two cores.
 *
 * It takes only what it is sure of: a file in which every line is blank or has exactly six
 * fields separated by ASCII whitespace, the same tag on every line, plain decimal scores,
 * no document twice in the ranked part of a topic, and at least one qrels topic. Anything
 * else (comments, bad fields, NUL bytes, NaN, hexadecimal scores, -0, a repeated docno ...)
 * returns None, and the caller reads the run with the careful Python reader, which applies
 * the full rules and names the file and line of any error. So this file never decides what
 * an error is; it only makes the common case fast.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define UNJUDGED (-1)

/* ------------------------------------------------------------------ hashing */

static inline uint64_t hash_bytes(const char *s, Py_ssize_t n) {
    /* FNV-1a, then a final mix: ids are short, so this is cheap and spreads well. */
    uint64_t h = 1469598103934665603ULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ULL;
    }
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return h;
}

static inline uint64_t mix_topic(uint64_t h, int64_t topic) {
    uint64_t x = h ^ ((uint64_t)(topic + 1) * 0x9E3779B97F4A7C15ULL);
    x ^= x >> 29;
    return x;
}

/* ------------------------------------------------------------------ the qrels table */

/* A slot holds the (topic, docno) key's hash next to its line, so a lookup that misses —
 * most documents of a run are unjudged — touches one cache line and no id bytes. */
typedef struct {
    uint64_t key;
    int64_t line;
} Slot;

typedef struct {
    PyObject_HEAD
    /* topics: open addressing over topic ids */
    Py_ssize_t n_topics;
    char *topic_blob;
    Py_ssize_t *topic_off;
    Py_ssize_t *topic_len;
    int64_t *topic_slot; /* -1 empty, else topic index */
    uint64_t topic_mask;
    /* qrels lines: open addressing over (topic, docno) */
    Py_ssize_t n_lines;
    char *doc_blob;
    Py_ssize_t *doc_off;
    Py_ssize_t *doc_len;
    int64_t *doc_topic;
    int64_t *doc_code;
    Slot *doc_slot; /* line -1: empty */
    uint64_t doc_mask;
} QrelsTable;

static void qrels_dealloc(QrelsTable *self) {
    free(self->topic_blob); free(self->topic_off); free(self->topic_len); free(self->topic_slot);
    free(self->doc_blob); free(self->doc_off); free(self->doc_len); free(self->doc_topic);
    free(self->doc_code); free(self->doc_slot);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static uint64_t table_size(Py_ssize_t n) {
    uint64_t size = 16;
    while (size < (uint64_t)n * 2 + 1) size <<= 1;
    return size;
}

/* Copy a list of bytes objects into one blob with offsets and lengths. */
static int pack_bytes(PyObject *list, char **blob, Py_ssize_t **off, Py_ssize_t **len) {
    Py_ssize_t n = PyList_GET_SIZE(list), total = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PyList_GET_ITEM(list, i);
        if (!PyBytes_Check(item)) {
            PyErr_SetString(PyExc_TypeError, "ids must be bytes");
            return -1;
        }
        total += PyBytes_GET_SIZE(item);
    }
    *blob = malloc(total ? total : 1);
    *off = malloc(sizeof(Py_ssize_t) * (n ? n : 1));
    *len = malloc(sizeof(Py_ssize_t) * (n ? n : 1));
    if (!*blob || !*off || !*len) { PyErr_NoMemory(); return -1; }
    Py_ssize_t at = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PyList_GET_ITEM(list, i);
        Py_ssize_t k = PyBytes_GET_SIZE(item);
        memcpy(*blob + at, PyBytes_AS_STRING(item), k);
        (*off)[i] = at;
        (*len)[i] = k;
        at += k;
    }
    return 0;
}

static inline int64_t find_topic(const QrelsTable *q, const char *s, Py_ssize_t n) {
    uint64_t h = hash_bytes(s, n) & q->topic_mask;
    for (;;) {
        int64_t t = q->topic_slot[h];
        if (t < 0) return -1;
        if (q->topic_len[t] == n && memcmp(q->topic_blob + q->topic_off[t], s, n) == 0) return t;
        h = (h + 1) & q->topic_mask;
    }
}

static inline int64_t find_doc(const QrelsTable *q, int64_t topic, const char *s, Py_ssize_t n, uint64_t hash) {
    uint64_t key = mix_topic(hash, topic);
    uint64_t h = key & q->doc_mask;
    for (;;) {
        const Slot *slot = &q->doc_slot[h];
        if (slot->line < 0) return -1;
        if (slot->key == key) {
            int64_t i = slot->line; /* confirm on the bytes: a hash collision never mislabels */
            if (q->doc_topic[i] == topic && q->doc_len[i] == n && memcmp(q->doc_blob + q->doc_off[i], s, n) == 0)
                return i;
        }
        h = (h + 1) & q->doc_mask;
    }
}

static int build_table(QrelsTable *self, PyObject *topics, const int64_t *line_topic, const char *docnos,
                       Py_ssize_t docnos_size, const int64_t *codes, Py_ssize_t n);

/* Split a blob of '\n'-separated ids (each line one id, none empty) into offsets and lengths. */
static int split_blob(const char *data, Py_ssize_t size, Py_ssize_t n, char **blob, Py_ssize_t **off,
                      Py_ssize_t **len) {
    *blob = malloc(size ? size : 1);
    *off = malloc(sizeof(Py_ssize_t) * (n ? n : 1));
    *len = malloc(sizeof(Py_ssize_t) * (n ? n : 1));
    if (!*blob || !*off || !*len) { PyErr_NoMemory(); return -1; }
    memcpy(*blob, data, size);
    Py_ssize_t at = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        const char *end = at <= size ? memchr(*blob + at, '\n', size - at) : NULL;
        Py_ssize_t stop = end ? end - *blob : size;
        if (stop == at || (end == NULL && i != n - 1)) {
            PyErr_SetString(PyExc_ValueError, "the docno blob does not hold one id per line");
            return -1;
        }
        (*off)[i] = at;
        (*len)[i] = stop - at;
        at = stop + 1;
    }
    if (at < size) {
        PyErr_SetString(PyExc_ValueError, "the docno blob holds more ids than lines");
        return -1;
    }
    return 0;
}

/* QrelsTable(topics: list[bytes], line_topic: int64 buffer, docnos: bytes ('\n'-separated),
 *            codes: int64 buffer) */
static int qrels_init(QrelsTable *self, PyObject *args, PyObject *kwds) {
    (void)kwds;
    PyObject *topics;
    Py_buffer line_topic_buf, docnos_buf, codes_buf;
    if (!PyArg_ParseTuple(args, "O!y*y*y*", &PyList_Type, &topics, &line_topic_buf, &docnos_buf, &codes_buf))
        return -1;
    int status = -1;
    Py_ssize_t n = line_topic_buf.len / (Py_ssize_t)sizeof(int64_t);
    const int64_t *line_topic = line_topic_buf.buf, *codes = codes_buf.buf;
    if (codes_buf.len != line_topic_buf.len || line_topic_buf.len % (Py_ssize_t)sizeof(int64_t)) {
        PyErr_SetString(PyExc_ValueError, "line_topic and codes differ in length");
        goto done;
    }
    status = build_table(self, topics, line_topic, docnos_buf.buf, docnos_buf.len, codes, n);
done:
    PyBuffer_Release(&line_topic_buf);
    PyBuffer_Release(&docnos_buf);
    PyBuffer_Release(&codes_buf);
    return status;
}

static int build_table(QrelsTable *self, PyObject *topics, const int64_t *line_topic, const char *docnos,
                       Py_ssize_t docnos_size, const int64_t *codes, Py_ssize_t n) {
    self->n_topics = PyList_GET_SIZE(topics);
    if (pack_bytes(topics, &self->topic_blob, &self->topic_off, &self->topic_len) < 0) return -1;
    uint64_t size = table_size(self->n_topics);
    self->topic_mask = size - 1;
    self->topic_slot = malloc(sizeof(int64_t) * size);
    if (!self->topic_slot) { PyErr_NoMemory(); return -1; }
    for (uint64_t i = 0; i < size; i++) self->topic_slot[i] = -1;
    for (Py_ssize_t t = 0; t < self->n_topics; t++) {
        uint64_t h = hash_bytes(self->topic_blob + self->topic_off[t], self->topic_len[t]) & self->topic_mask;
        while (self->topic_slot[h] >= 0) h = (h + 1) & self->topic_mask;
        self->topic_slot[h] = t;
    }

    self->n_lines = n;
    if (split_blob(docnos, docnos_size, n, &self->doc_blob, &self->doc_off, &self->doc_len) < 0) return -1;
    self->doc_topic = malloc(sizeof(int64_t) * (n ? n : 1));
    self->doc_code = malloc(sizeof(int64_t) * (n ? n : 1));
    size = table_size(n);
    self->doc_mask = size - 1;
    self->doc_slot = malloc(sizeof(Slot) * size);
    if (!self->doc_topic || !self->doc_code || !self->doc_slot) { PyErr_NoMemory(); return -1; }
    for (uint64_t i = 0; i < size; i++) self->doc_slot[i].line = -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t topic = line_topic[i];
        int64_t code = codes[i];
        if (topic < 0 || topic >= self->n_topics) {
            PyErr_SetString(PyExc_ValueError, "qrels topic index out of range");
            return -1;
        }
        const char *s = self->doc_blob + self->doc_off[i];
        Py_ssize_t k = self->doc_len[i];
        if (find_doc(self, topic, s, k, hash_bytes(s, k)) >= 0) {
            PyErr_SetString(PyExc_ValueError, "a (topic, docno) pair is given twice");
            return -1;
        }
        self->doc_topic[i] = topic;
        self->doc_code[i] = code;
        uint64_t key = mix_topic(hash_bytes(s, k), topic);
        uint64_t h = key & self->doc_mask;
        while (self->doc_slot[h].line >= 0) h = (h + 1) & self->doc_mask;
        self->doc_slot[h].key = key;
        self->doc_slot[h].line = i;
    }
    return 0;
}

/* ------------------------------------------------------------------ parsing one run */

typedef struct {
    double score;
    const char *doc;
    uint64_t hash; /* of the docno bytes */
    int32_t len;
    int32_t topic;
    int64_t code;
} Entry;

static inline int is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

static const double POW10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
                               1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* A plain decimal [+-]?(d+.?d*|.d+)([eE][+-]?d+)? to the correctly rounded double; 0 if the
 * token is anything else (the careful reader decides what it means). Up to 15 significant
 * digits and a power of ten up to 22 are exact in double arithmetic (Clinger's fast path);
 * anything longer goes to strtod, which rounds correctly too. */
static int parse_score(const char *s, Py_ssize_t n, double *out) {
    Py_ssize_t i = 0;
    int negative = 0;
    if (i < n && (s[i] == '+' || s[i] == '-')) { negative = s[i] == '-'; i++; }
    uint64_t mantissa = 0;   /* the first 19 significant digits */
    int digits = 0;          /* significant digits kept in mantissa */
    int scale = 0;           /* value = mantissa * 10^(scale + exponent) */
    int truncated = 0, seen = 0;
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, seen = 1) {
        int d = s[i] - '0';
        if (mantissa == 0 && d == 0) continue;              /* a leading zero */
        if (digits < 19) { mantissa = mantissa * 10 + d; digits++; }
        else { scale++; truncated = 1; }
    }
    if (i < n && s[i] == '.') {
        for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++, seen = 1) {
            int d = s[i] - '0';
            if (mantissa == 0 && d == 0) { scale--; continue; }
            if (digits < 19) { mantissa = mantissa * 10 + d; digits++; scale--; }
            else truncated = 1;
        }
    }
    if (!seen) return 0;
    long exponent = 0;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        int eneg = 0, eseen = 0;
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-')) { eneg = s[i] == '-'; i++; }
        for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, eseen = 1)
            if (exponent < 100000) exponent = exponent * 10 + (s[i] - '0');
        if (!eseen) return 0;
        if (eneg) exponent = -exponent;
    }
    if (i != n) return 0;
    if (mantissa == 0) {
        if (negative) return 0; /* -0: signed zeros are left to the careful reader */
        *out = 0.0;
        return 1;
    }
    long power = exponent + scale;
    if (!truncated && digits <= 15 && power >= -22 && power <= 22) {
        double value = (double)mantissa; /* exact: < 10^15 < 2^53 */
        value = power >= 0 ? value * POW10[power] : value / POW10[-power];
        *out = negative ? -value : value;
        return 1;
    }
    char buffer[128];
    if (n >= (Py_ssize_t)sizeof(buffer)) return 0;
    memcpy(buffer, s, n);
    buffer[n] = '\0';
    char *end;
    double value = strtod(buffer, &end);
    if (end != buffer + n || isnan(value) || isinf(value) || (value == 0.0 && negative)) return 0;
    *out = value;
    return 1;
}

/* trec_eval's order: score descending, then docno descending (strcmp on the bytes). */
static inline int ranks_before(const Entry *a, const Entry *b) {
    if (a->score != b->score) return a->score > b->score;
    int32_t k = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->doc, b->doc, k);
    if (c != 0) return c > 0;
    return a->len > b->len;
}

static int compare_entries(const void *x, const void *y) {
    const Entry *a = x, *b = y;
    if (ranks_before(a, b)) return -1;
    if (ranks_before(b, a)) return 1;
    return 0;
}

typedef struct {
    /* inputs */
    const QrelsTable *q;
    const char *data;
    Py_ssize_t size;
    const char *tag;
    Py_ssize_t tag_len;
    int64_t depth; /* -1: no cut */
    int judged_only;
    int float32;
    /* outputs */
    int64_t *n_lines; /* per topic: lines read */
    int64_t *n_kept;  /* per topic: grades kept */
    int64_t *grades;  /* concatenated over topics */
    int64_t n_grades;
    char **outside; /* distinct topics not in the qrels (pointers into data) */
    Py_ssize_t *outside_len;
    Py_ssize_t n_outside;
    int no_memory;
} Job;

#define LOOKAHEAD 8

static inline void look_up(const QrelsTable *q, Entry *e) {
    int64_t line = find_doc(q, e->topic, e->doc, e->len, e->hash);
    e->code = line < 0 ? UNJUDGED : q->doc_code[line];
}

static inline int same_bytes(const char *a, Py_ssize_t na, const char *b, Py_ssize_t nb) {
    return na == nb && memcmp(a, b, na) == 0;
}

/* Returns 1 on success, 0 when the careful reader must take the run. Runs without the GIL. */
static int ingest(Job *job) {
    const QrelsTable *q = job->q;
    const char *p = job->data, *end = job->data + job->size;
    Py_ssize_t capacity = job->size / 24 + 16, n = 0;
    Entry *entries = malloc(sizeof(Entry) * capacity);
    Py_ssize_t outside_cap = 16;
    job->outside = malloc(sizeof(char *) * outside_cap);
    job->outside_len = malloc(sizeof(Py_ssize_t) * outside_cap);
    if (!entries || !job->outside || !job->outside_len) { free(entries); job->no_memory = 1; return 0; }
    const char *last_topic = NULL;
    Py_ssize_t last_topic_len = -1;
    int64_t last_tidx = -1;
    int ok = 1;

    while (p < end && ok) {
        const char *line_end = memchr(p, '\n', end - p);
        if (!line_end) line_end = end;
        const char *field[7];
        Py_ssize_t flen[7];
        int nf = 0;
        const char *c = p;
        while (c < line_end) {
            while (c < line_end && is_blank(*c)) c++;
            if (c >= line_end) break;
            const char *start = c;
            while (c < line_end && !is_blank(*c)) {
                if (*c == '\0') { ok = 0; break; }
                c++;
            }
            if (!ok) break;
            if (nf == 6) { ok = 0; break; } /* a seventh field */
            field[nf] = start;
            flen[nf] = c - start;
            nf++;
        }
        p = line_end + 1;
        if (!ok) break;
        if (nf == 0) continue;               /* a blank line */
        if (nf != 6 || field[0][0] == '#') { ok = 0; break; }
        if (!same_bytes(field[5], flen[5], job->tag, job->tag_len)) { ok = 0; break; }
        double score;
        if (!parse_score(field[4], flen[4], &score)) { ok = 0; break; }
        if (job->float32) score = (double)(float)score;

        int64_t tidx;
        if (last_topic && same_bytes(field[0], flen[0], last_topic, last_topic_len)) {
            tidx = last_tidx;
        } else {
            tidx = find_topic(q, field[0], flen[0]);
            last_topic = field[0];
            last_topic_len = flen[0];
            last_tidx = tidx;
            if (tidx < 0) {
                int known = 0;
                for (Py_ssize_t k = 0; k < job->n_outside && !known; k++)
                    known = same_bytes(job->outside[k], job->outside_len[k], field[0], flen[0]);
                if (!known) {
                    if (job->n_outside == outside_cap) {
                        outside_cap *= 2;
                        char **o = realloc(job->outside, sizeof(char *) * outside_cap);
                        if (o) job->outside = o;
                        Py_ssize_t *ol = realloc(job->outside_len, sizeof(Py_ssize_t) * outside_cap);
                        if (ol) job->outside_len = ol;
                        if (!o || !ol) { job->no_memory = 1; ok = 0; break; }
                    }
                    job->outside[job->n_outside] = (char *)field[0];
                    job->outside_len[job->n_outside] = flen[0];
                    job->n_outside++;
                    if (job->n_outside > 4096) { ok = 0; break; } /* many foreign topics: leave it */
                }
            }
        }
        if (tidx < 0) continue;
        if (n == capacity) {
            capacity *= 2;
            Entry *grown = realloc(entries, sizeof(Entry) * capacity);
            if (!grown) { job->no_memory = 1; ok = 0; break; }
            entries = grown;
        }
        Entry *e = &entries[n++];
        e->score = score;
        e->doc = field[2];
        e->len = (int32_t)flen[2];
        e->topic = (int32_t)tidx;
        e->hash = hash_bytes(field[2], flen[2]);
        /* The slot of this line is fetched while earlier lines are looked up: the qrels table
         * is larger than the caches, and the lookup's memory latency is the parse's cost. */
        __builtin_prefetch(&q->doc_slot[mix_topic(e->hash, tidx) & q->doc_mask]);
        if (n > LOOKAHEAD) look_up(q, &entries[n - 1 - LOOKAHEAD]);
    }
    for (Py_ssize_t i = n > LOOKAHEAD ? n - LOOKAHEAD : 0; ok && i < n; i++) look_up(q, &entries[i]);
    if (ok && n == 0) ok = 0; /* no qrels topic at all: the careful reader says which */

    Entry *grouped = NULL;
    Py_ssize_t *start = NULL;
    uint64_t *seen = NULL;
    if (ok) {
        /* Group the lines by topic. Runs are nearly always written topic by topic: then each
         * topic's lines are one block already and only its offset is noted; otherwise a
         * counting sort (which keeps file order within a topic) copies them into place. */
        Py_ssize_t T = q->n_topics;
        start = calloc(T + 1, sizeof(Py_ssize_t));
        job->grades = malloc(sizeof(int64_t) * (n ? n : 1));
        if (!start || !job->grades) { job->no_memory = 1; ok = 0; }
        Py_ssize_t blocks = 0, topics_seen = 0;
        for (Py_ssize_t i = 0; ok && i < n; i++) {
            if (job->n_lines[entries[i].topic]++ == 0) topics_seen++;
            if (i == 0 || entries[i].topic != entries[i - 1].topic) {
                blocks++;
                start[entries[i].topic] = i;
            }
        }
        if (ok && blocks == topics_seen) {
            grouped = entries; /* contiguous: start[t] is where topic t's block begins */
            entries = NULL;
        } else if (ok) {
            grouped = malloc(sizeof(Entry) * (n ? n : 1));
            Py_ssize_t *fill = malloc(sizeof(Py_ssize_t) * (T ? T : 1));
            if (!grouped || !fill) { job->no_memory = 1; ok = 0; }
            else {
                start[0] = 0;
                for (Py_ssize_t t = 0; t < T; t++) start[t + 1] = start[t] + job->n_lines[t];
                memcpy(fill, start, sizeof(Py_ssize_t) * T);
                for (Py_ssize_t i = 0; i < n; i++) grouped[fill[entries[i].topic]++] = entries[i];
            }
            free(fill);
        }
        Py_ssize_t widest = 0;
        for (Py_ssize_t t = 0; ok && t < T; t++)
            if (job->n_lines[t] > widest) widest = job->n_lines[t];
        uint64_t seen_size = table_size(widest);
        if (ok) {
            seen = malloc(sizeof(uint64_t) * seen_size);
            if (!seen) { job->no_memory = 1; ok = 0; }
        }
        for (Py_ssize_t t = 0; ok && t < T; t++) {
            Entry *block = grouped + start[t];
            Py_ssize_t m = job->n_lines[t];
            int sorted = 1;
            for (Py_ssize_t i = 1; i < m && sorted; i++) sorted = !ranks_before(&block[i], &block[i - 1]);
            if (!sorted) qsort(block, m, sizeof(Entry), compare_entries);
            Py_ssize_t ranked = job->depth >= 0 && job->depth < m ? job->depth : m;
            /* a document twice in the ranked part: the careful reader raises or keeps the first */
            uint64_t mask = table_size(ranked) - 1;
            for (uint64_t i = 0; i <= mask; i++) seen[i] = UINT64_MAX;
            for (Py_ssize_t i = 0; i < ranked && ok; i++) {
                uint64_t h = block[i].hash & mask;
                while (seen[h] != UINT64_MAX) {
                    const Entry *other = &block[seen[h]];
                    if (other->hash == block[i].hash && same_bytes(other->doc, other->len, block[i].doc, block[i].len)) {
                        ok = 0;
                        break;
                    }
                    h = (h + 1) & mask;
                }
                seen[h] = (uint64_t)i;
            }
            for (Py_ssize_t i = 0; i < ranked && ok; i++) {
                if (job->judged_only && block[i].code < 0) continue;
                job->grades[job->n_grades++] = block[i].code;
                job->n_kept[t]++;
            }
        }
    }
    free(entries);
    free(grouped);
    free(start);
    free(seen);
    return ok;
}

/* table.rank(data: bytes, tag: bytes, depth: int, judged_only: bool, float32: bool)
 *   -> (n_lines: bytes, n_kept: bytes, grades: bytes, outside_topics: list[bytes]) or None */
static PyObject *qrels_rank(QrelsTable *self, PyObject *args) {
    Py_buffer data, tag;
    long long depth;
    int judged_only, float32;
    if (!PyArg_ParseTuple(args, "y*y*Lpp", &data, &tag, &depth, &judged_only, &float32)) return NULL;
    Job job;
    memset(&job, 0, sizeof(job));
    job.q = self;
    job.data = data.buf;
    job.size = data.len;
    job.tag = tag.buf;
    job.tag_len = tag.len;
    job.depth = depth;
    job.judged_only = judged_only;
    job.float32 = float32;
    Py_ssize_t T = self->n_topics;
    job.n_lines = calloc(T ? T : 1, sizeof(int64_t));
    job.n_kept = calloc(T ? T : 1, sizeof(int64_t));
    PyObject *result = NULL;
    if (!job.n_lines || !job.n_kept) {
        PyErr_NoMemory();
        goto done;
    }
    int ok;
    Py_BEGIN_ALLOW_THREADS
    ok = ingest(&job);
    Py_END_ALLOW_THREADS
    if (job.no_memory) {
        PyErr_NoMemory();
        goto done;
    }
    if (!ok) {
        result = Py_None;
        Py_INCREF(result);
        goto done;
    }
    PyObject *outside = PyList_New(job.n_outside);
    if (!outside) goto done;
    for (Py_ssize_t k = 0; k < job.n_outside; k++) {
        PyObject *b = PyBytes_FromStringAndSize(job.outside[k], job.outside_len[k]);
        if (!b) { Py_DECREF(outside); goto done; }
        PyList_SET_ITEM(outside, k, b);
    }
    result = Py_BuildValue("(y#y#y#N)", (const char *)job.n_lines, (Py_ssize_t)(sizeof(int64_t) * T),
                           (const char *)job.n_kept, (Py_ssize_t)(sizeof(int64_t) * T),
                           (const char *)job.grades, (Py_ssize_t)(sizeof(int64_t) * job.n_grades), outside);
done:
    free(job.n_lines);
    free(job.n_kept);
    free(job.grades);
    free(job.outside);
    free(job.outside_len);
    PyBuffer_Release(&data);
    PyBuffer_Release(&tag);
    return result;
}

static PyMethodDef qrels_methods[] = {
    {"rank", (PyCFunction)qrels_rank, METH_VARARGS,
     "rank(data, tag, depth, judged_only, float32) -> (n_lines, n_kept, grades, outside_topics) or None"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject QrelsTableType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "irstats._ingest.QrelsTable",
    .tp_doc = "The qrels as hash tables over topics and (topic, docno), for ranking runs in C.",
    .tp_basicsize = sizeof(QrelsTable),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)qrels_init,
    .tp_dealloc = (destructor)qrels_dealloc,
    .tp_methods = qrels_methods,
};

static struct PyModuleDef ingest_module = {
    PyModuleDef_HEAD_INIT, "irstats._ingest",
    "The compiled fast path from TREC run bytes to ranked grades (see irstats.ingest).", -1, NULL,
};

PyMODINIT_FUNC PyInit__ingest(void) {
    if (PyType_Ready(&QrelsTableType) < 0) return NULL;
    PyObject *module = PyModule_Create(&ingest_module);
    if (!module) return NULL;
    Py_INCREF(&QrelsTableType);
    if (PyModule_AddObject(module, "QrelsTable", (PyObject *)&QrelsTableType) < 0) {
        Py_DECREF(&QrelsTableType);
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
