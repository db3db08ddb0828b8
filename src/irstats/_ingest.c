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
 *
 * It raises only for a caller's mistake or a limit of its own, never for what a run says:
 *   QrelsTable(...)   TypeError: topics not bytes, line_topic/codes not int64 buffers;
 *                     ValueError: a buffer not one-dimensional, C-contiguous and 8-byte
 *                     aligned, ids and lines that do not agree, a (topic, docno) twice;
 *                     OverflowError: more topics than an int32 numbers;
 *                     RuntimeError: the table is already built (see qrels_init);
 *   table.rank(...)   OverflowError: a docno of 2 GiB or more (run entries hold lengths as
 *                     int32), naming the line; RuntimeError: a table never built;
 *   both              MemoryError.
 * irstats.ingest turns ValueError and OverflowError into "not this way": the batch goes to
 * the Python readers, which either take the file or name its file and line.
 *
 * The work of rank() is four phases, one function each: read_lines (tokenise each line,
 * parse its score, find its topic and grade), group_by_topic, then per topic sort_topic,
 * has_repeated_doc and write_grades.
 *
 * A run of several GB is ranked a block at a time (irstats.ingest.streamed_judgments): each
 * block holds all the lines of its topics, so rank() on it gives those topics' grades as on
 * the whole file; rank(..., allow_empty=True) takes a block without a qrels topic. When the
 * run's topics are not contiguous, partition_lines() deals each block's lines into parts by a
 * hash of their topic (an external sort by blocks), and each part is ranked.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stddef.h>
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
    /* 1 once __init__ has built every array above. Set with the GIL held and never cleared
     * while the object lives, so a rank() running without the GIL reads arrays that no one
     * frees or changes under it. */
    int ready;
} QrelsTable;

/* Free the table's arrays and zero every field after the object header: the table is then
 * as tp_new made it (empty, not ready). Used by dealloc and by a failed __init__. */
static void free_table(QrelsTable *self) {
    free(self->topic_blob); free(self->topic_off); free(self->topic_len); free(self->topic_slot);
    free(self->doc_blob); free(self->doc_off); free(self->doc_len); free(self->doc_topic);
    free(self->doc_code); free(self->doc_slot);
    memset((char *)self + offsetof(QrelsTable, n_topics), 0, sizeof(QrelsTable) - offsetof(QrelsTable, n_topics));
}

static void qrels_dealloc(QrelsTable *self) {
    free_table(self);
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

static int build_table(QrelsTable *self, PyObject *topics, const int64_t *line_topic, const char *docnos,
                       Py_ssize_t docnos_size, const int64_t *codes, Py_ssize_t n) {
    /* Run entries hold their topic index as int32 (see Entry): refuse here, once, a table
     * whose indexes would not fit, so that no narrowing in rank() can wrap. */
    if (PyList_GET_SIZE(topics) > INT32_MAX) {
        PyErr_Format(PyExc_OverflowError, "QrelsTable: %zd topics; the compiled reader numbers topics with "
                     "32-bit integers (at most %d)", PyList_GET_SIZE(topics), INT32_MAX);
        return -1;
    }
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

/* Whether a buffer format names int64 in this machine's byte order: "q", or "l" (numpy's
 * int64 exports "l" where a long has 8 bytes), after an optional "@", "=" or the byte-order
 * mark of this machine. The item size is checked by the caller ("=l" is 4 bytes). */
static int is_int64_format(const char *format) {
    if (format == NULL) return 0; /* no format: unsigned bytes */
    if (*format == '@' || *format == '=') format++;
#if PY_LITTLE_ENDIAN
    else if (*format == '<') format++;
#else
    else if (*format == '>' || *format == '!') format++;
#endif
    return (format[0] == 'q' || format[0] == 'l') && format[1] == '\0';
}

/* The buffer of `obj` if it can be read as an int64_t array as it is: int64 items, one
 * dimension, C-contiguous, and aligned for int64_t (a cast to int64_t * of a misaligned
 * address is undefined behaviour, and a bytes object or an int32 array of the right byte
 * length would be read as the wrong numbers). Otherwise an exception naming the argument. */
static int get_int64_buffer(PyObject *obj, const char *name, Py_buffer *view) {
    if (PyObject_GetBuffer(obj, view, PyBUF_FULL_RO) < 0) return -1;
    if (view->itemsize != (Py_ssize_t)sizeof(int64_t) || !is_int64_format(view->format)) {
        PyErr_Format(PyExc_TypeError, "QrelsTable: %s must be an int64 array (numpy.int64), not a buffer of "
                     "format '%s' with %zd-byte items", name, view->format ? view->format : "B", view->itemsize);
    } else if (view->ndim != 1) {
        PyErr_Format(PyExc_ValueError, "QrelsTable: %s must be one-dimensional, not %d-dimensional", name,
                     view->ndim);
    } else if (!PyBuffer_IsContiguous(view, 'C')) {
        PyErr_Format(PyExc_ValueError, "QrelsTable: %s must be C-contiguous (numpy.ascontiguousarray)", name);
    } else if ((uintptr_t)view->buf % sizeof(int64_t) != 0) {
        PyErr_Format(PyExc_ValueError, "QrelsTable: %s must start on an 8-byte boundary (its data is at an "
                     "address %d bytes past one); copy it (numpy.array(..., dtype=numpy.int64))", name,
                     (int)((uintptr_t)view->buf % sizeof(int64_t)));
    } else {
        return 0;
    }
    PyBuffer_Release(view);
    return -1;
}

/* QrelsTable(topics: list[bytes], line_topic: int64 array, docnos: bytes ('\n'-separated),
 *            codes: int64 array)
 *
 * A table is built once and never changes: a second __init__ on a built table raises
 * RuntimeError. Rebuilding in place would free the arrays that a rank() running without
 * the GIL on another thread is reading, and nothing needs it (build a new table). A failed
 * __init__ frees what it built and leaves the table empty and not ready (rank() refuses
 * it), so calling __init__ again then is safe. */
static int qrels_init(QrelsTable *self, PyObject *args, PyObject *kwds) {
    (void)kwds;
    if (self->ready) {
        PyErr_SetString(PyExc_RuntimeError, "QrelsTable is already built and cannot be initialised again "
                        "(a rank() may be reading it); make a new QrelsTable");
        return -1;
    }
    PyObject *topics, *line_topic_obj, *codes_obj;
    Py_buffer line_topic_buf, docnos_buf, codes_buf;
    if (!PyArg_ParseTuple(args, "O!Oy*O", &PyList_Type, &topics, &line_topic_obj, &docnos_buf, &codes_obj))
        return -1;
    int status = -1;
    if (get_int64_buffer(line_topic_obj, "line_topic", &line_topic_buf) < 0) goto release_docnos;
    if (get_int64_buffer(codes_obj, "codes", &codes_buf) < 0) goto release_line_topic;
    if (codes_buf.len != line_topic_buf.len) {
        PyErr_SetString(PyExc_ValueError, "line_topic and codes differ in length");
    } else {
        status = build_table(self, topics, line_topic_buf.buf, docnos_buf.buf, docnos_buf.len, codes_buf.buf,
                             line_topic_buf.len / (Py_ssize_t)sizeof(int64_t));
        if (status < 0) free_table(self);
        else self->ready = 1;
    }
    PyBuffer_Release(&codes_buf);
release_line_topic:
    PyBuffer_Release(&line_topic_buf);
release_docnos:
    PyBuffer_Release(&docnos_buf);
    return status;
}

/* ------------------------------------------------------------------ parsing one run */

/* One ranked line. 40 bytes: what a run costs in memory while it is ranked, so the docno's
 * length and the topic index are int32. add_entry checks the length (a docno of 2 GiB
 * fails loudly instead of wrapping); the topic index is below n_topics, which build_table
 * keeps within int32. */
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

/* Past this value an exponent's further digits are not accumulated (so it stays below
 * 10^6 and cannot overflow); the exponent is then marked inexact and the token never takes
 * the fast path: strtod, which reads the whole token, decides what it is, or, for a token of
 * 128 bytes or more, the careful reader does. */
#define EXPONENT_CAP 100000
/* |scale| beyond this puts exponent + scale outside [-22, 22] for any exact exponent: the
 * fast path is then impossible, and the sum is never formed (so it cannot overflow). */
#define SCALE_CAP (10 * EXPONENT_CAP + 22)

/* A plain decimal [+-]?(d+.?d*|.d+)([eE][+-]?d+)? to the correctly rounded double; 0 if the
 * token is anything else (the careful reader decides what it means). Up to 15 significant
 * digits and a power of ten up to 22 are exact in double arithmetic (Clinger's fast path);
 * anything longer goes to strtod, which rounds correctly too (tokens of 128 bytes or more
 * are left to the careful reader).
 *
 * Overflow: `scale` moves by one per character, so |scale| <= n <= PY_SSIZE_T_MAX fits in
 * int64_t; `exponent` stays below 10 * EXPONENT_CAP; their sum is formed only when
 * |scale| <= SCALE_CAP. No token, however long (400 digits, a million leading zeros, an
 * exponent of 10^30), can overflow any of them. The fast path is taken only when every one
 * of them is exact: a capped exponent once let 0.<99999 zeros>1e1000000 (infinite) pass as
 * 1.0, because 100000 - 100000 looked like a power of 0. */
static int parse_score(const char *s, Py_ssize_t n, double *out) {
    Py_ssize_t i = 0;
    int negative = 0;
    if (i < n && (s[i] == '+' || s[i] == '-')) { negative = s[i] == '-'; i++; }
    uint64_t mantissa = 0;   /* the first 19 significant digits: < 10^19 < 2^64 */
    int digits = 0;          /* significant digits kept in mantissa */
    int64_t scale = 0;       /* value = mantissa * 10^(scale + exponent) */
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
    int64_t exponent = 0;
    int exponent_capped = 0;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        int eneg = 0, eseen = 0;
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-')) { eneg = s[i] == '-'; i++; }
        for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, eseen = 1) {
            if (exponent < EXPONENT_CAP) exponent = exponent * 10 + (s[i] - '0');
            else exponent_capped = 1;
        }
        if (!eseen) return 0;
        if (eneg) exponent = -exponent;
    }
    if (i != n) return 0;
    if (mantissa == 0) {
        if (negative) return 0; /* -0: signed zeros are left to the careful reader */
        *out = 0.0;
        return 1;
    }
    if (!truncated && !exponent_capped && digits <= 15 && scale >= -SCALE_CAP && scale <= SCALE_CAP) {
        int64_t power = exponent + scale;
        if (power >= -22 && power <= 22) {
            double value = (double)mantissa; /* exact: < 10^15 < 2^53 */
            value = power >= 0 ? value * POW10[power] : value / POW10[-power];
            *out = negative ? -value : value;
            return 1;
        }
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

/* Why a rank() raises instead of returning None: set only together with ingest()'s 0. */
typedef enum { FAILED_NOT = 0, FAILED_NO_MEMORY, FAILED_DOCNO_TOO_LONG, FAILED_TOPIC_INDEX } Failure;

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
    int allow_empty; /* a run with no qrels topic ranks to nothing, not None (a block of a streamed run) */
    /* outputs */
    int64_t *n_lines; /* per topic: lines read */
    int64_t *n_kept;  /* per topic: grades kept */
    int64_t *grades;  /* concatenated over topics */
    int64_t n_grades;
    char **outside; /* distinct topics not in the qrels (pointers into data) */
    Py_ssize_t *outside_len;
    Py_ssize_t n_outside, outside_cap;
    /* failures */
    Failure failure;
    int64_t line;          /* the line of the failure (from 1), for its message */
    int64_t too_big;       /* the value that did not fit */
} Job;

/* The entries of a run in file order, grown by doubling. */
typedef struct {
    Entry *at;
    Py_ssize_t n, capacity;
} Entries;

/* The topic of the previous line: runs are written topic by topic, so one comparison of
 * the bytes usually replaces a hash lookup. */
typedef struct {
    const char *s;
    Py_ssize_t len;
    int64_t index;
} TopicCache;

#define LOOKAHEAD 8
/* Many topics outside the qrels: not the file this path is for; leave it to the readers. */
#define MAX_OUTSIDE 4096

static inline void look_up(const QrelsTable *q, Entry *e) {
    int64_t line = find_doc(q, e->topic, e->doc, e->len, e->hash);
    e->code = line < 0 ? UNJUDGED : q->doc_code[line];
}

static inline int same_bytes(const char *a, Py_ssize_t na, const char *b, Py_ssize_t nb) {
    return na == nb && memcmp(a, b, na) == 0;
}

/* Tokenise the line [c, line_end) (its '\n' already cut) at ASCII blanks into at most six
 * fields. Returns the number of fields, or -1 when the careful reader must take the file:
 * a NUL byte (trec_eval's C strings would end there) or a seventh field (the fast path
 * takes only six-field files, whose meaning is never in doubt). */
static inline int split_fields(const char *c, const char *line_end, const char **field, Py_ssize_t *flen) {
    int nf = 0;
    for (;;) {
        while (c < line_end && is_blank(*c)) c++;
        if (c >= line_end) return nf;
        const char *start = c;
        while (c < line_end && !is_blank(*c)) {
            if (*c == '\0') return -1;
            c++;
        }
        if (nf == 6) return -1;
        field[nf] = start;
        flen[nf] = c - start;
        nf++;
    }
}

/* Note a topic outside the qrels once (the caller warns of them by run). Returns 0 when
 * the careful reader must take the file: too many such topics, or no memory (failure). */
static int note_outside(Job *job, const char *s, Py_ssize_t n) {
    for (Py_ssize_t k = 0; k < job->n_outside; k++)
        if (same_bytes(job->outside[k], job->outside_len[k], s, n)) return 1;
    if (job->n_outside == job->outside_cap) {
        job->outside_cap *= 2;
        char **o = realloc(job->outside, sizeof(char *) * job->outside_cap);
        if (o) job->outside = o;
        Py_ssize_t *ol = realloc(job->outside_len, sizeof(Py_ssize_t) * job->outside_cap);
        if (ol) job->outside_len = ol;
        if (!o || !ol) { job->failure = FAILED_NO_MEMORY; return 0; }
    }
    job->outside[job->n_outside] = (char *)s;
    job->outside_len[job->n_outside] = n;
    job->n_outside++;
    return job->n_outside <= MAX_OUTSIDE;
}

/* The qrels index of a line's topic into *index, -1 for a topic outside the qrels. Returns
 * 0 when the careful reader must take the file (see note_outside). */
static inline int topic_of(Job *job, TopicCache *last, const char *s, Py_ssize_t n, int64_t *index) {
    if (last->s && same_bytes(s, n, last->s, last->len)) {
        *index = last->index;
        return 1;
    }
    int64_t t = find_topic(job->q, s, n);
    last->s = s;
    last->len = n;
    last->index = t;
    *index = t;
    return t >= 0 ? 1 : note_outside(job, s, n);
}

/* Append the entry of one ranked line and look up the grade of the line LOOKAHEAD lines
 * back. Returns 0 (with job->failure) when the line does not fit an Entry or memory runs
 * out: raised, never wrapped. */
static inline int add_entry(Job *job, Entries *entries, int64_t topic, const char *doc, Py_ssize_t doc_len,
                            double score) {
    const QrelsTable *q = job->q;
    if (doc_len > INT32_MAX) { job->failure = FAILED_DOCNO_TOO_LONG; job->too_big = doc_len; return 0; }
    if (topic < 0 || topic > INT32_MAX) { job->failure = FAILED_TOPIC_INDEX; job->too_big = topic; return 0; }
    if (entries->n == entries->capacity) {
        if ((size_t)entries->capacity > (size_t)PY_SSIZE_T_MAX / 2 / sizeof(Entry)) {
            job->failure = FAILED_NO_MEMORY;
            return 0;
        }
        Entry *grown = realloc(entries->at, sizeof(Entry) * entries->capacity * 2);
        if (!grown) { job->failure = FAILED_NO_MEMORY; return 0; }
        entries->at = grown;
        entries->capacity *= 2;
    }
    Entry *e = &entries->at[entries->n++];
    e->score = score;
    e->doc = doc;
    e->len = (int32_t)doc_len;
    e->topic = (int32_t)topic;
    e->hash = hash_bytes(doc, doc_len);
    /* The slot of this line is fetched while earlier lines are looked up: the qrels table
     * is larger than the caches, and the lookup's memory latency is the parse's cost. */
    __builtin_prefetch(&q->doc_slot[mix_topic(e->hash, topic) & q->doc_mask]);
    if (entries->n > LOOKAHEAD) look_up(q, &entries->at[entries->n - 1 - LOOKAHEAD]);
    return 1;
}

/* Phase 1: every line of the run to an Entry (topic index, docno, score, grade code), in
 * file order; lines of topics outside the qrels are noted, not kept. Returns 1, or 0 when
 * the careful reader must take the run (a comment, a wrong field count, another tag, a
 * score that is not a plain decimal, ...; job->failure set if it must raise instead). */
static int read_lines(Job *job, Entries *entries) {
    const char *p = job->data, *end = job->data + job->size;
    TopicCache last = {NULL, -1, -1};
    int64_t line = 0;
    while (p < end) {
        const char *line_end = memchr(p, '\n', end - p);
        if (!line_end) line_end = end;
        line++;
        const char *field[6];
        Py_ssize_t flen[6];
        int nf = split_fields(p, line_end, field, flen);
        p = line_end < end ? line_end + 1 : end;
        if (nf < 0) return 0;
        if (nf == 0) continue; /* a blank line */
        if (nf != 6 || field[0][0] == '#') return 0;
        if (!same_bytes(field[5], flen[5], job->tag, job->tag_len)) return 0;
        double score;
        if (!parse_score(field[4], flen[4], &score)) return 0;
        if (job->float32) score = (double)(float)score;
        int64_t topic;
        if (!topic_of(job, &last, field[0], flen[0], &topic)) return 0;
        if (topic < 0) continue;
        if (!add_entry(job, entries, topic, field[2], flen[2], score)) {
            job->line = line;
            return 0;
        }
    }
    for (Py_ssize_t i = entries->n > LOOKAHEAD ? entries->n - LOOKAHEAD : 0; i < entries->n; i++)
        look_up(job->q, &entries->at[i]);
    return 1;
}

/* Phase 2: the entries grouped by topic, file order kept within a topic; topic t's lines
 * are then (*grouped)[(*start)[t] ...] for job->n_lines[t] lines. Runs are nearly always
 * written topic by topic: then each topic's lines are one block already, only its offset
 * is noted and the entries are taken over as they are; otherwise a counting sort copies
 * them into place. Returns 0 (failure) only when memory runs out. */
static int group_by_topic(Job *job, Entries *entries, Entry **grouped, Py_ssize_t **start) {
    Py_ssize_t T = job->q->n_topics, n = entries->n;
    const Entry *e = entries->at;
    *start = calloc(T + 1, sizeof(Py_ssize_t));
    if (!*start) { job->failure = FAILED_NO_MEMORY; return 0; }
    Py_ssize_t blocks = 0, topics_seen = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (job->n_lines[e[i].topic]++ == 0) topics_seen++;
        if (i == 0 || e[i].topic != e[i - 1].topic) {
            blocks++;
            (*start)[e[i].topic] = i;
        }
    }
    if (blocks == topics_seen) {
        *grouped = entries->at; /* contiguous: start[t] is where topic t's block begins */
        entries->at = NULL;
        return 1;
    }
    *grouped = malloc(sizeof(Entry) * (n ? n : 1));
    Py_ssize_t *fill = malloc(sizeof(Py_ssize_t) * (T ? T : 1));
    if (!*grouped || !fill) { free(fill); job->failure = FAILED_NO_MEMORY; return 0; }
    (*start)[0] = 0;
    for (Py_ssize_t t = 0; t < T; t++) (*start)[t + 1] = (*start)[t] + job->n_lines[t];
    memcpy(fill, *start, sizeof(Py_ssize_t) * T);
    for (Py_ssize_t i = 0; i < n; i++) (*grouped)[fill[e[i].topic]++] = e[i];
    free(fill);
    return 1;
}

/* Phase 3a: one topic's entries in trec_eval's order. Runs are written in that order
 * nearly always, so one pass checks it and qsort runs only when it is not. qsort is not
 * stable, but score then docno is a total order on distinct documents, and two entries of
 * the same document carry the same grade (has_repeated_doc declines them when ranked). */
static void sort_topic(Entry *block, Py_ssize_t m) {
    for (Py_ssize_t i = 1; i < m; i++) {
        if (ranks_before(&block[i], &block[i - 1])) {
            qsort(block, m, sizeof(Entry), compare_entries);
            return;
        }
    }
}

/* Phase 3b: whether a document appears twice among the first `ranked` entries of a sorted
 * topic. The careful reader then raises or keeps the first, by the options: its decision.
 * `seen` has room for table_size(ranked) slots; compared on the bytes, not the hash. */
static int has_repeated_doc(const Entry *block, Py_ssize_t ranked, uint64_t *seen) {
    uint64_t mask = table_size(ranked) - 1;
    for (uint64_t i = 0; i <= mask; i++) seen[i] = UINT64_MAX;
    for (Py_ssize_t i = 0; i < ranked; i++) {
        uint64_t h = block[i].hash & mask;
        while (seen[h] != UINT64_MAX) {
            const Entry *other = &block[seen[h]];
            if (other->hash == block[i].hash && same_bytes(other->doc, other->len, block[i].doc, block[i].len))
                return 1;
            h = (h + 1) & mask;
        }
        seen[h] = (uint64_t)i;
    }
    return 0;
}

/* Phase 3c: the grades of topic t's first `ranked` entries, appended to job->grades; under
 * -J only the judged ones (after the cut at M, as the Python path drops them). */
static void write_grades(Job *job, Py_ssize_t t, const Entry *block, Py_ssize_t ranked) {
    for (Py_ssize_t i = 0; i < ranked; i++) {
        if (job->judged_only && block[i].code < 0) continue;
        job->grades[job->n_grades++] = block[i].code;
        job->n_kept[t]++;
    }
}

/* Phase 3: each topic sorted, cut at the depth, checked for repeated documents and written
 * out. `n` is the number of entries (the most grades there can be). Returns 0 when the
 * careful reader must take the run or (failure) memory runs out. */
static int rank_topics(Job *job, Entry *grouped, const Py_ssize_t *start, Py_ssize_t n) {
    Py_ssize_t T = job->q->n_topics, widest = 0;
    job->grades = malloc(sizeof(int64_t) * (n ? n : 1));
    for (Py_ssize_t t = 0; t < T; t++)
        if (job->n_lines[t] > widest) widest = job->n_lines[t];
    uint64_t *seen = malloc(sizeof(uint64_t) * table_size(widest));
    if (!job->grades || !seen) { free(seen); job->failure = FAILED_NO_MEMORY; return 0; }
    int ok = 1;
    for (Py_ssize_t t = 0; ok && t < T; t++) {
        Entry *block = grouped + start[t];
        Py_ssize_t m = job->n_lines[t];
        sort_topic(block, m);
        Py_ssize_t ranked = job->depth >= 0 && job->depth < m ? job->depth : m;
        if (has_repeated_doc(block, ranked, seen)) ok = 0;
        else write_grades(job, t, block, ranked);
    }
    free(seen);
    return ok;
}

/* The entries' first block and the list of topics outside the qrels, for `entries->capacity`
 * entries. Returns 0 (failure) when memory runs out. */
static int start_entries(Job *job, Entries *entries) {
    entries->at = malloc(sizeof(Entry) * entries->capacity);
    job->outside_cap = 16;
    job->outside = malloc(sizeof(char *) * job->outside_cap);
    job->outside_len = malloc(sizeof(Py_ssize_t) * job->outside_cap);
    if (!entries->at || !job->outside || !job->outside_len) {
        free(entries->at);
        entries->at = NULL;
        job->failure = FAILED_NO_MEMORY;
        return 0;
    }
    return 1;
}

/* Phases 2 and 3 on the entries read (from a file's lines or from Python objects). */
static int rank_entries(Job *job, Entries *entries) {
    Entry *grouped = NULL;
    Py_ssize_t *start = NULL;
    int ok = (entries->n > 0 || job->allow_empty) /* no qrels topic at all: the careful reader says which */
             && group_by_topic(job, entries, &grouped, &start)
             && rank_topics(job, grouped, start, entries->n);
    free(grouped);
    free(start);
    return ok;
}

/* The whole of rank() that runs without the GIL: touches no Python object. Returns 1 on
 * success, 0 when the careful reader must take the run or job->failure says what to raise. */
static int ingest(Job *job) {
    Entries entries = {NULL, 0, job->size / 24 + 16};
    if (!start_entries(job, &entries)) return 0;
    int ok = read_lines(job, &entries) && rank_entries(job, &entries);
    free(entries.at); /* NULL when group_by_topic took the entries over */
    return ok;
}

/* The exception for a failed job (the GIL held). */
static void raise_failure(const Job *job) {
    switch (job->failure) {
    case FAILED_DOCNO_TOO_LONG:
        PyErr_Format(PyExc_OverflowError, "line %lld of the run: a docno of %lld bytes; the compiled reader "
                     "holds docno lengths as 32-bit integers (at most %d bytes)", (long long)job->line,
                     (long long)job->too_big, INT32_MAX);
        break;
    case FAILED_TOPIC_INDEX:
        PyErr_Format(PyExc_OverflowError, "line %lld of the run: topic index %lld does not fit in 32 bits",
                     (long long)job->line, (long long)job->too_big);
        break;
    default:
        PyErr_NoMemory();
    }
}

/* rank()'s result: (n_lines, n_kept, grades, outside_topics) of a job that succeeded. */
static PyObject *ranked_result(const Job *job) {
    Py_ssize_t T = job->q->n_topics;
    PyObject *outside = PyList_New(job->n_outside);
    if (!outside) return NULL;
    for (Py_ssize_t k = 0; k < job->n_outside; k++) {
        PyObject *b = PyBytes_FromStringAndSize(job->outside[k], job->outside_len[k]);
        if (!b) { Py_DECREF(outside); return NULL; }
        PyList_SET_ITEM(outside, k, b);
    }
    return Py_BuildValue("(y#y#y#N)", (const char *)job->n_lines, (Py_ssize_t)(sizeof(int64_t) * T),
                         (const char *)job->n_kept, (Py_ssize_t)(sizeof(int64_t) * T),
                         (const char *)job->grades, (Py_ssize_t)(sizeof(int64_t) * job->n_grades), outside);
}

static void free_job(Job *job) {
    free(job->n_lines);
    free(job->n_kept);
    free(job->grades);
    free(job->outside);
    free(job->outside_len);
}

/* table.rank(data: bytes, tag: bytes, depth: int, judged_only: bool, float32: bool, allow_empty: bool = False)
 *   -> (n_lines: bytes, n_kept: bytes, grades: bytes, outside_topics: list[bytes]) or None
 * allow_empty: data without a line of a qrels topic gives zero counts instead of None (it is
 * one block of a run read a block at a time, and another block may hold the qrels topics). */
static PyObject *qrels_rank(QrelsTable *self, PyObject *args) {
    if (!self->ready) {
        PyErr_SetString(PyExc_RuntimeError, "QrelsTable.rank(): the table was never built (its __init__ was "
                        "not called or failed)");
        return NULL;
    }
    Py_buffer data, tag;
    long long depth;
    int judged_only, float32, allow_empty = 0;
    if (!PyArg_ParseTuple(args, "y*y*Lpp|p", &data, &tag, &depth, &judged_only, &float32, &allow_empty))
        return NULL;
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
    job.allow_empty = allow_empty;
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
    if (job.failure) {
        raise_failure(&job);
        goto done;
    }
    result = ok ? ranked_result(&job) : Py_NewRef(Py_None);
done:
    free_job(&job);
    PyBuffer_Release(&data);
    PyBuffer_Release(&tag);
    return result;
}

/* One line given as Python objects: the topic and the docno as str, the score a float (or a
 * subclass, as numpy's float64) or an int. Returns 1 (its entry added, or its topic noted as
 * outside the qrels), 0 when this path declines it — and so the run: ids that are not str,
 * a score that is not a number, many topics outside the qrels, and on a qrels topic a NUL
 * byte in the docno or a NaN or -0 score — or -1 when memory
 * runs out (job->failure). The entry points into the str's UTF-8 bytes: the caller's list
 * holds the objects while the run is ranked. */
static int add_object_line(Job *job, Entries *entries, TopicCache *last, PyObject *topic, PyObject *doc,
                           PyObject *score) {
    if (!PyUnicode_Check(topic) || !PyUnicode_Check(doc)) return 0;
    Py_ssize_t topic_len, doc_len;
    const char *topic_s = PyUnicode_AsUTF8AndSize(topic, &topic_len);
    const char *doc_s = topic_s ? PyUnicode_AsUTF8AndSize(doc, &doc_len) : NULL;
    if (!doc_s) { /* a lone surrogate has no UTF-8: the Python path decides */
        PyErr_Clear();
        return 0;
    }
    double value;
    if (PyFloat_Check(score)) {
        value = PyFloat_AS_DOUBLE(score);
    } else if (PyLong_CheckExact(score)) {
        value = PyLong_AsDouble(score);
        if (value == -1.0 && PyErr_Occurred()) { PyErr_Clear(); return 0; }
    } else {
        return 0; /* bool, str, None, another number type: the Python path reads or refuses it */
    }
    int64_t index;
    if (!topic_of(job, last, topic_s, topic_len, &index)) return 0;
    if (index < 0) return 1; /* a topic the qrels lack: dropped whatever its line holds, as the Python path does */
    if (memchr(doc_s, '\0', doc_len) || isnan(value) || (value == 0.0 && signbit(value))) return 0;
    if (job->float32) value = (double)(float)value;
    return add_entry(job, entries, index, doc_s, doc_len, value) ? 1 : -1;
}

/* table.rank_objects(rows, fields, topics, docnos, scores, float32) -> (n_lines, n_kept, grades,
 * outside_topics) as rank(), or None when this path declines the run.
 * The lines are `rows`, a list of tuples of one type (namedtuples too) with the topic, docno and
 * score at the positions `fields`, or a dict of dicts {topic: {docno: score}} (fields unused);
 * or, with rows None, the lists `topics`, `docnos` and `scores`, one
 * item a line. Every line of a topic is ranked and checked for a repeated document (no depth
 * cut, nothing condensed: the caller does both, irstats.integrations.columns). Runs with the
 * GIL held: the entries point into the caller's str objects. */
static PyObject *qrels_rank_objects(QrelsTable *self, PyObject *args) {
    if (!self->ready) {
        PyErr_SetString(PyExc_RuntimeError, "QrelsTable.rank_objects(): the table was never built");
        return NULL;
    }
    PyObject *rows, *topics, *docnos, *scores;
    Py_ssize_t at[3];
    int float32;
    if (!PyArg_ParseTuple(args, "O(nnn)OOOp", &rows, &at[0], &at[1], &at[2], &topics, &docnos, &scores, &float32))
        return NULL;
    Py_ssize_t n, widest_field = 0;
    for (int k = 0; k < 3; k++) {
        if (at[k] < 0) Py_RETURN_NONE;
        if (at[k] > widest_field) widest_field = at[k];
    }
    PyTypeObject *kind = NULL; /* every row of one type, so the fields are at the same positions */
    if (rows != Py_None && PyDict_Check(rows)) { /* {topic: {docno: score}}: its lines counted first */
        n = 0;
        Py_ssize_t at_topic = 0;
        PyObject *topic, *docs;
        while (PyDict_Next(rows, &at_topic, &topic, &docs)) {
            if (!PyDict_Check(docs)) Py_RETURN_NONE;
            n += PyDict_GET_SIZE(docs);
        }
    } else if (rows != Py_None) {
        if (!PyList_Check(rows)) Py_RETURN_NONE;
        n = PyList_GET_SIZE(rows);
        if (n) kind = Py_TYPE(PyList_GET_ITEM(rows, 0));
    } else {
        if (!PyList_Check(topics) || !PyList_Check(docnos) || !PyList_Check(scores)) Py_RETURN_NONE;
        n = PyList_GET_SIZE(topics);
        if (PyList_GET_SIZE(docnos) != n || PyList_GET_SIZE(scores) != n) Py_RETURN_NONE;
    }
    Job job;
    memset(&job, 0, sizeof(job));
    job.q = self;
    job.depth = -1;
    job.float32 = float32;
    job.allow_empty = 1;
    Py_ssize_t T = self->n_topics;
    job.n_lines = calloc(T ? T : 1, sizeof(int64_t));
    job.n_kept = calloc(T ? T : 1, sizeof(int64_t));
    Entries entries = {NULL, 0, n + 16};
    PyObject *result = NULL;
    if (!job.n_lines || !job.n_kept || !start_entries(&job, &entries)) {
        PyErr_NoMemory();
        goto done;
    }
    TopicCache last = {NULL, -1, -1};
    int ok = 1;
    if (rows != Py_None && PyDict_Check(rows)) {
        Py_ssize_t at_topic = 0;
        PyObject *topic, *docs;
        while (ok && PyDict_Next(rows, &at_topic, &topic, &docs)) {
            Py_ssize_t at_doc = 0;
            PyObject *doc, *score;
            while (ok && PyDict_Next(docs, &at_doc, &doc, &score)) {
                int added = add_object_line(&job, &entries, &last, topic, doc, score);
                if (added < 0) {
                    raise_failure(&job);
                    goto done;
                }
                ok = added;
            }
        }
    } else {
        for (Py_ssize_t i = 0; ok && i < n; i++) {
            PyObject *topic, *doc, *score;
            if (rows != Py_None) {
                PyObject *row = PyList_GET_ITEM(rows, i);
                if (Py_TYPE(row) != kind || !PyTuple_Check(row) || PyTuple_GET_SIZE(row) <= widest_field) {
                    ok = 0;
                    break;
                }
                topic = PyTuple_GET_ITEM(row, at[0]);
                doc = PyTuple_GET_ITEM(row, at[1]);
                score = PyTuple_GET_ITEM(row, at[2]);
            } else {
                topic = PyList_GET_ITEM(topics, i);
                doc = PyList_GET_ITEM(docnos, i);
                score = PyList_GET_ITEM(scores, i);
            }
            int added = add_object_line(&job, &entries, &last, topic, doc, score);
            if (added < 0) {
                raise_failure(&job);
                goto done;
            }
            ok = added;
        }
    }
    if (ok) {
        for (Py_ssize_t i = entries.n > LOOKAHEAD ? entries.n - LOOKAHEAD : 0; i < entries.n; i++)
            look_up(self, &entries.at[i]);
        ok = rank_entries(&job, &entries);
        if (job.failure) {
            raise_failure(&job);
            goto done;
        }
    }
    result = ok ? ranked_result(&job) : Py_NewRef(Py_None);
done:
    free(entries.at);
    free_job(&job);
    return result;
}

/* ------------------------------------------------------------------ reading a qrels file */

/* One qrels line while the file is read: 24 bytes. The docno's length is checked against
 * INT32_MAX before it is narrowed (a longer docno leaves the file to the careful reader). */
typedef struct {
    const char *doc;
    int32_t len;
    int32_t topic; /* first-seen index while reading, then the index in bytewise order */
    int64_t rel;
} QrelsLine;

/* A grade trec_eval and the careful reader both read as the same whole number: [+-]?d+ with at
 * most 18 digits (so it fits in int64 without overflow). Anything else (2.5, 1e3, 0x1, a
 * 19-digit number) returns 0 and the careful reader decides: real labels, atol, or an error. */
static int parse_grade(const char *s, Py_ssize_t n, int64_t *out) {
    Py_ssize_t i = 0;
    int negative = 0;
    if (i < n && (s[i] == '+' || s[i] == '-')) { negative = s[i] == '-'; i++; }
    if (i == n || n - i > 18) return 0;
    int64_t value = 0;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return 0;
        value = value * 10 + (s[i] - '0');
    }
    *out = negative ? -value : value;
    return 1;
}

/* Tokenise [c, line_end) at ASCII blanks into at most `most` fields; -1 on one more. */
static inline int split_at_most(const char *c, const char *line_end, int most, const char **field,
                                Py_ssize_t *flen) {
    int nf = 0;
    for (;;) {
        while (c < line_end && is_blank(*c)) c++;
        if (c >= line_end) return nf;
        const char *start = c;
        while (c < line_end && !is_blank(*c)) c++;
        if (nf == most) return -1;
        field[nf] = start;
        flen[nf] = c - start;
        nf++;
    }
}

static inline int compare_ids(const char *a, Py_ssize_t na, const char *b, Py_ssize_t nb) {
    int c = memcmp(a, b, na < nb ? na : nb);
    if (c != 0) return c;
    return na < nb ? -1 : na > nb;
}

/* The topics met while reading, interned in first-seen order (open addressing, grown by
 * doubling): a qrels file names each topic on many lines, usually consecutive. */
typedef struct {
    const char **s;
    Py_ssize_t *len;
    Py_ssize_t n, capacity;
    int64_t *slot; /* -1 empty, else the topic's first-seen index */
    uint64_t mask;
} TopicSet;

static int topics_grow(TopicSet *set) {
    Py_ssize_t capacity = set->capacity ? set->capacity * 2 : 64;
    const char **s = realloc(set->s, sizeof(char *) * capacity);
    if (s) set->s = s;
    Py_ssize_t *len = realloc(set->len, sizeof(Py_ssize_t) * capacity);
    if (len) set->len = len;
    uint64_t size = table_size(capacity);
    int64_t *slot = malloc(sizeof(int64_t) * size);
    if (!s || !len || !slot) { free(slot); return -1; }
    for (uint64_t i = 0; i < size; i++) slot[i] = -1;
    for (Py_ssize_t t = 0; t < set->n; t++) {
        uint64_t h = hash_bytes(set->s[t], set->len[t]) & (size - 1);
        while (slot[h] >= 0) h = (h + 1) & (size - 1);
        slot[h] = t;
    }
    free(set->slot);
    set->slot = slot;
    set->mask = size - 1;
    set->capacity = capacity;
    return 0;
}

/* The first-seen index of a topic, added if new; -1 when memory runs out or there would be
 * more topics than an int32 numbers. */
static int64_t topics_intern(TopicSet *set, const char *s, Py_ssize_t n) {
    if (set->n == set->capacity && (set->n >= INT32_MAX || topics_grow(set) < 0)) return -1;
    uint64_t h = hash_bytes(s, n) & set->mask;
    for (;;) {
        int64_t t = set->slot[h];
        if (t < 0) break;
        if (same_bytes(set->s[t], set->len[t], s, n)) return t;
        h = (h + 1) & set->mask;
    }
    set->s[set->n] = s;
    set->len[set->n] = n;
    set->slot[h] = set->n;
    return set->n++;
}

static void topics_free(TopicSet *set) {
    free(set->s); free(set->len); free(set->slot);
}

/* A topic with its first-seen index, for sorting the topics bytewise. */
typedef struct {
    const char *s;
    Py_ssize_t len;
    int64_t index;
} TopicRef;

static int compare_topic_refs(const void *x, const void *y) {
    const TopicRef *a = x, *b = y;
    return compare_ids(a->s, a->len, b->s, b->len);
}

static int compare_qrels_lines(const void *x, const void *y) {
    const QrelsLine *a = x, *b = y;
    if (a->topic != b->topic) return a->topic < b->topic ? -1 : 1;
    return compare_ids(a->doc, a->len, b->doc, b->len);
}

typedef struct {
    const char *data;
    Py_ssize_t size;
    TopicSet topics;
    int64_t *order;   /* topic indexes in bytewise order */
    QrelsLine *lines;
    Py_ssize_t n, capacity;
    int no_memory;
} QrelsRead;

/* Every content line to a QrelsLine, topics interned; 0 when the careful reader must take
 * the file (a NUL byte, a line of other than four fields, a grade that is not a plain whole
 * number, a docno of 2 GiB, no line at all) or memory runs out (no_memory). */
static int qrels_read_lines(QrelsRead *r) {
    const char *p = r->data, *end = r->data + r->size;
    if (memchr(p, '\0', r->size)) return 0; /* binary or UTF-16: the careful reader names it */
    const char *last = NULL;
    Py_ssize_t last_len = 0;
    int64_t last_topic = -1;
    while (p < end) {
        const char *line_end = memchr(p, '\n', end - p);
        if (!line_end) line_end = end;
        const char *field[4];
        Py_ssize_t flen[4];
        int nf = split_at_most(p, line_end, 4, field, flen);
        p = line_end < end ? line_end + 1 : end;
        if (nf == 0 || (nf > 0 && field[0][0] == '#')) continue; /* blank, or a comment */
        if (nf != 4) return 0;
        int64_t rel;
        if (!parse_grade(field[3], flen[3], &rel) || flen[2] > INT32_MAX) return 0;
        int64_t topic = last_topic;
        if (!last || !same_bytes(last, last_len, field[0], flen[0])) {
            topic = topics_intern(&r->topics, field[0], flen[0]);
            if (topic < 0) { r->no_memory = r->topics.n < INT32_MAX; return 0; }
            last = field[0];
            last_len = flen[0];
            last_topic = topic;
        }
        if (r->n == r->capacity) {
            Py_ssize_t capacity = r->capacity ? r->capacity * 2 : 1024;
            QrelsLine *grown = realloc(r->lines, sizeof(QrelsLine) * capacity);
            if (!grown) { r->no_memory = 1; return 0; }
            r->lines = grown;
            r->capacity = capacity;
        }
        QrelsLine *line = &r->lines[r->n++];
        line->doc = field[2];
        line->len = (int32_t)flen[2];
        line->topic = (int32_t)topic;
        line->rel = rel;
    }
    return r->n > 0;
}

/* Topics in bytewise order, lines renumbered and sorted by (topic, docno) — skipped when
 * the file is in that order already, as qrels files nearly always are. 0 when a (topic,
 * docno) pair is judged twice (the careful reader raises or resolves it, by the options)
 * or memory runs out (no_memory). */
static int qrels_sort_lines(QrelsRead *r) {
    Py_ssize_t T = r->topics.n;
    r->order = malloc(sizeof(int64_t) * (T ? T : 1));
    int64_t *rank = malloc(sizeof(int64_t) * (T ? T : 1));
    TopicRef *refs = malloc(sizeof(TopicRef) * (T ? T : 1));
    if (!r->order || !rank || !refs) { free(rank); free(refs); r->no_memory = 1; return 0; }
    for (Py_ssize_t t = 0; t < T; t++) refs[t] = (TopicRef){r->topics.s[t], r->topics.len[t], t};
    qsort(refs, T, sizeof(TopicRef), compare_topic_refs);
    for (Py_ssize_t t = 0; t < T; t++) {
        r->order[t] = refs[t].index;
        rank[refs[t].index] = t;
    }
    free(refs);
    int sorted = 1;
    for (Py_ssize_t i = 0; i < r->n; i++) {
        r->lines[i].topic = (int32_t)rank[r->lines[i].topic];
        if (i && sorted && compare_qrels_lines(&r->lines[i - 1], &r->lines[i]) > 0) sorted = 0;
    }
    free(rank);
    if (!sorted) qsort(r->lines, r->n, sizeof(QrelsLine), compare_qrels_lines);
    for (Py_ssize_t i = 1; i < r->n; i++)
        if (compare_qrels_lines(&r->lines[i - 1], &r->lines[i]) == 0) return 0;
    return 1;
}

/* read_qrels(data: bytes)
 *   -> (topics: list[bytes], line_topic: bytes, docnos: bytes, rel: bytes) or None
 *
 * A qrels file's bytes (decompressed) to its lines sorted by (topic, docno) bytewise:
 * the topics in bytewise order, each line's topic index (int64), the docnos joined by
 * '\n' in line order, and each line's grade (int64). Blank lines and lines whose first
 * field starts with '#' are skipped, as the careful reader skips them. None for anything
 * else it does not take as it is (see qrels_read_lines and qrels_sort_lines): the caller
 * reads the file with the careful reader, which names the file and line of any error. */
static PyObject *read_qrels(PyObject *module, PyObject *args) {
    (void)module;
    Py_buffer data;
    if (!PyArg_ParseTuple(args, "y*", &data)) return NULL;
    QrelsRead r;
    memset(&r, 0, sizeof(r));
    r.data = data.buf;
    r.size = data.len;
    int ok;
    Py_BEGIN_ALLOW_THREADS
    ok = qrels_read_lines(&r) && qrels_sort_lines(&r);
    Py_END_ALLOW_THREADS
    PyObject *result = NULL, *topics = NULL, *line_topic = NULL, *docnos = NULL, *rel = NULL;
    if (r.no_memory) { PyErr_NoMemory(); goto done; }
    if (!ok) { result = Py_None; Py_INCREF(result); goto done; }
    Py_ssize_t T = r.topics.n, total = r.n - 1;
    for (Py_ssize_t i = 0; i < r.n; i++) total += r.lines[i].len;
    topics = PyList_New(T);
    line_topic = PyBytes_FromStringAndSize(NULL, sizeof(int64_t) * r.n);
    docnos = PyBytes_FromStringAndSize(NULL, total);
    rel = PyBytes_FromStringAndSize(NULL, sizeof(int64_t) * r.n);
    if (!topics || !line_topic || !docnos || !rel) goto done;
    for (Py_ssize_t t = 0; t < T; t++) {
        int64_t k = r.order[t];
        PyObject *b = PyBytes_FromStringAndSize(r.topics.s[k], r.topics.len[k]);
        if (!b) goto done;
        PyList_SET_ITEM(topics, t, b);
    }
    int64_t *tidx = (int64_t *)PyBytes_AS_STRING(line_topic), *grades = (int64_t *)PyBytes_AS_STRING(rel);
    char *at = PyBytes_AS_STRING(docnos);
    for (Py_ssize_t i = 0; i < r.n; i++) {
        tidx[i] = r.lines[i].topic;
        grades[i] = r.lines[i].rel;
        if (i) *at++ = '\n';
        memcpy(at, r.lines[i].doc, r.lines[i].len);
        at += r.lines[i].len;
    }
    result = PyTuple_Pack(4, topics, line_topic, docnos, rel);
done:
    Py_XDECREF(topics);
    Py_XDECREF(line_topic);
    Py_XDECREF(docnos);
    Py_XDECREF(rel);
    topics_free(&r.topics);
    free(r.order);
    free(r.lines);
    PyBuffer_Release(&data);
    return result;
}

/* ------------------------------------------------------------------ partitioning a run by topic */

/* The first field of the line [p, line_end): its start in *topic and its length (0 for a
 * blank line). Fields are split at ASCII blanks, as split_fields splits them. */
static inline Py_ssize_t first_field(const char *p, const char *line_end, const char **topic) {
    while (p < line_end && is_blank(*p)) p++;
    *topic = p;
    const char *c = p;
    while (c < line_end && !is_blank(*c)) c++;
    return c - p;
}

static inline Py_ssize_t part_of(const char *topic, Py_ssize_t n, uint64_t seed, Py_ssize_t n_parts) {
    return (Py_ssize_t)(mix_topic(hash_bytes(topic, n), (int64_t)seed) % (uint64_t)n_parts);
}

/* One pass over the lines of data: with out NULL, the bytes each part receives into size[];
 * else each line (and a newline) copied to out[part] at fill[part], never past size[part].
 * Blank lines are dropped. Returns 0 when a line would not fit (the data changed between the
 * two passes: a buffer someone else writes to). */
static int partition_pass(const char *data, Py_ssize_t n, Py_ssize_t n_parts, uint64_t seed, Py_ssize_t *size,
                           char **out, Py_ssize_t *fill) {
    const char *p = data, *end = data + n;
    while (p < end) {
        const char *line_end = memchr(p, '\n', end - p);
        if (!line_end) line_end = end;
        const char *topic;
        Py_ssize_t topic_len = first_field(p, line_end, &topic);
        if (topic_len > 0) {
            Py_ssize_t k = part_of(topic, topic_len, seed, n_parts), length = line_end - p;
            if (out) {
                if (fill[k] + length + 1 > size[k]) return 0;
                memcpy(out[k] + fill[k], p, length);
                out[k][fill[k] + length] = '\n';
                fill[k] += length + 1;
            } else {
                size[k] += length + 1;
            }
        }
        p = line_end < end ? line_end + 1 : end;
    }
    return 1;
}

/* partition_lines(data: bytes, n_parts: int, seed: int) -> list of n_parts bytes
 * The non-blank lines of a run, each with its newline, dealt into n_parts parts by a hash of
 * their first field (the topic) and seed, in file order within a part: every line of a topic
 * lands in the same part. A run whose topics are not contiguous is so sorted by blocks
 * (irstats.ingest): each part is then ranked as a run of its own. */
static PyObject *partition_lines(PyObject *module, PyObject *args) {
    Py_buffer data;
    Py_ssize_t n_parts;
    unsigned long long seed;
    if (!PyArg_ParseTuple(args, "y*nK", &data, &n_parts, &seed)) return NULL;
    PyObject *parts = NULL;
    Py_ssize_t *size = NULL, *fill = NULL;
    char **out = NULL;
    if (n_parts < 1) {
        PyErr_SetString(PyExc_ValueError, "partition_lines(): n_parts must be at least 1");
        goto done;
    }
    size = calloc(n_parts, sizeof(Py_ssize_t));
    fill = calloc(n_parts, sizeof(Py_ssize_t));
    out = calloc(n_parts, sizeof(char *));
    if (!size || !fill || !out) {
        PyErr_NoMemory();
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    partition_pass(data.buf, data.len, n_parts, seed, size, NULL, NULL);
    Py_END_ALLOW_THREADS
    parts = PyList_New(n_parts);
    if (!parts) goto done;
    for (Py_ssize_t k = 0; k < n_parts; k++) {
        PyObject *b = PyBytes_FromStringAndSize(NULL, size[k]);
        if (!b) {
            Py_CLEAR(parts);
            goto done;
        }
        PyList_SET_ITEM(parts, k, b);
        out[k] = PyBytes_AS_STRING(b);
    }
    /* the bytes objects are new and this call's own: filled without the GIL */
    int filled;
    Py_BEGIN_ALLOW_THREADS
    filled = partition_pass(data.buf, data.len, n_parts, seed, size, out, fill);
    Py_END_ALLOW_THREADS
    if (!filled) {
        Py_CLEAR(parts);
        PyErr_SetString(PyExc_ValueError, "partition_lines(): the data changed while it was read");
    }
done:
    free(size);
    free(fill);
    free(out);
    PyBuffer_Release(&data);
    return parts;
}

static PyMethodDef module_methods[] = {
    {"partition_lines", (PyCFunction)partition_lines, METH_VARARGS,
     "partition_lines(data, n_parts, seed) -> list of n_parts bytes: the non-blank lines dealt into parts by "
     "a hash of their topic (first field), each with its newline, in file order within a part"},
    {"read_qrels", (PyCFunction)read_qrels, METH_VARARGS,
     "read_qrels(data) -> (topics, line_topic, docnos, rel) or None: a qrels file's lines sorted by "
     "(topic, docno); None when the careful reader must take the file"},
    {NULL, NULL, 0, NULL},
};

static PyMethodDef qrels_methods[] = {
    {"rank", (PyCFunction)qrels_rank, METH_VARARGS,
     "rank(data, tag, depth, judged_only, float32, allow_empty=False) -> (n_lines, n_kept, grades, "
     "outside_topics) or None"},
    {"rank_objects", (PyCFunction)qrels_rank_objects, METH_VARARGS,
     "rank_objects(rows, fields, topics, docnos, scores, float32) -> (n_lines, n_kept, grades, outside_topics) "
     "or None: a run given as Python objects (a list of tuples with the topic, docno and score at the positions "
     "fields, a dict of dicts, or three lists), every line ranked, none cut"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject QrelsTableType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "irstats._ingest.QrelsTable",
    .tp_doc = "The qrels as hash tables over topics and (topic, docno), for ranking runs in C.\n\n"
              "Built once by __init__; a second __init__ raises RuntimeError.",
    .tp_basicsize = sizeof(QrelsTable),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)qrels_init,
    .tp_dealloc = (destructor)qrels_dealloc,
    .tp_methods = qrels_methods,
};

static struct PyModuleDef ingest_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "irstats._ingest",
    .m_doc = "The compiled fast path from TREC run bytes to ranked grades (see irstats.ingest).",
    .m_size = -1,
    .m_methods = module_methods,
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
