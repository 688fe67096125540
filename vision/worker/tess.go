//go:build vision

package worker

/*
#cgo pkg-config: tesseract lept
#cgo LDFLAGS: -lgomp
#include <stdlib.h>
#include <omp.h>
#include <tesseract/capi.h>
#include <leptonica/allheaders.h>

// lept_quiet stops Leptonica's messages, which it prints to the process's stderr: Tesseract's
// layout analysis hands it boxes outside the image of some camera frames, and each is an
// "Error in boxClipToRectangle" line (a hundred for one peek) that Tesseract copes with.
static void lept_quiet(void) { setMsgSeverity(L_SEVERITY_NONE); }

// lept_severity is the severity below which Leptonica says nothing.
static int lept_severity(void) {
	int old = setMsgSeverity(L_SEVERITY_NONE);
	setMsgSeverity(old);
	return old;
}

// tword is one recognised word, with the number of the text line it is on.
typedef struct {
	int x1, y1, x2, y2;
	float conf;
	char *text;
	int line;
} tword;

// tess_serial turns OpenMP parallel regions off for the calling thread. Debian's Tesseract
// runs parts of its LSTM on OpenMP teams (with num_threads clauses, which omp_set_num_threads
// does not bound): their threads spin on cores the other calls need, and on 2 cores a call
// took twice the CPU and wall time it takes alone. The engine runs calls in parallel instead.
// libgomp keeps the setting per thread, so it is made on the thread that recognises.
static void tess_serial(void) { omp_set_max_active_levels(0); }

static bool tess_cancelled(void *flag, int words) {
	return __atomic_load_n((int *)flag, __ATOMIC_RELAXED) != 0;
}

static void tess_cancel(int *flag) { __atomic_store_n(flag, 1, __ATOMIC_RELAXED); }

// tess_words recognises the image set on api and returns its words (*n of them, in a malloc'd
// array whose texts are copies the caller frees with tess_free_words). It returns -1 when
// recognition failed or was cancelled through flag.
static int tess_words(TessBaseAPI *api, int *flag, tword **out, int *n) {
	*out = NULL;
	*n = 0;
	tess_serial();
	ETEXT_DESC *mon = TessMonitorCreate();
	TessMonitorSetCancelFunc(mon, tess_cancelled);
	TessMonitorSetCancelThis(mon, flag);
	int rc = TessBaseAPIRecognize(api, mon);
	TessMonitorDelete(mon);
	if (rc != 0 || __atomic_load_n(flag, __ATOMIC_RELAXED) != 0) {
		return -1;
	}
	TessResultIterator *ri = TessBaseAPIGetIterator(api);
	if (ri == NULL) {
		return 0;
	}
	const TessPageIterator *pi = TessResultIteratorGetPageIteratorConst(ri);
	int cap = 128, line = 0;
	tword *w = malloc(cap * sizeof(tword));
	if (w == NULL) {
		TessResultIteratorDelete(ri);
		return -1;
	}
	do {
		if (TessPageIteratorIsAtBeginningOf(pi, RIL_TEXTLINE)) {
			line++;
		}
		char *text = TessResultIteratorGetUTF8Text(ri, RIL_WORD);
		if (text == NULL) {
			continue;
		}
		int x1, y1, x2, y2;
		if (!TessPageIteratorBoundingBox(pi, RIL_WORD, &x1, &y1, &x2, &y2)) {
			TessDeleteText(text);
			continue;
		}
		if (*n == cap) {
			cap *= 2;
			tword *bigger = realloc(w, cap * sizeof(tword));
			if (bigger == NULL) {
				TessDeleteText(text);
				break;
			}
			w = bigger;
		}
		tword *t = &w[(*n)++];
		t->x1 = x1; t->y1 = y1; t->x2 = x2; t->y2 = y2;
		t->conf = TessResultIteratorConfidence(ri, RIL_WORD);
		t->text = text;
		t->line = line;
	} while (TessResultIteratorNext(ri, RIL_WORD));
	TessResultIteratorDelete(ri);
	*out = w;
	return 0;
}

static void tess_free_words(tword *w, int n) {
	for (int i = 0; i < n; i++) {
		TessDeleteText(w[i].text);
	}
	free(w);
}
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"image"
	"unsafe"
)

// Tesseract is used through its own C API rather than gosseract: gosseract v2.4.1 never frees
// the texts nor the result iterator of GetBoundingBoxes (a leak on every call), and recognises
// the page again for each level asked. Here one recognition yields words and their lines, and
// everything Tesseract allocates is freed.

// tess is one Tesseract instance, initialised for a set of languages. Not safe for concurrent
// use: the engine pools them, one per call.
type tess struct {
	api   *C.TessBaseAPI
	langs string // "eng+chi_sim"
}

// tessVars are set on every Tesseract instance.
var tessVars = map[string]string{}

// tessWord is a word as Tesseract reports it, in the pixels of the image it was given.
type tessWord struct {
	text string
	box  image.Rectangle
	conf float64 // 0-100
	line int     // the text line it is on, from 1
}

// newTess starts Tesseract for langs ("eng+chi_sim") with the traineddata in dir (empty:
// Tesseract's default, or TESSDATA_PREFIX).
func newTess(dir, langs string) (*tess, error) {
	C.lept_quiet() // process-wide, and the same for every instance
	api := C.TessBaseAPICreate()
	if api == nil {
		return nil, errors.New("tesseract: cannot create an instance")
	}
	var cdir *C.char
	if dir != "" {
		cdir = C.CString(dir)
		defer C.free(unsafe.Pointer(cdir))
	}
	clangs := C.CString(langs)
	defer C.free(unsafe.Pointer(clangs))
	if C.TessBaseAPIInit3(api, cdir, clangs) != 0 {
		C.TessBaseAPIDelete(api)
		return nil, fmt.Errorf("tesseract: cannot load the languages %s (is their traineddata installed? "+
			"Debian: tesseract-ocr-eng, tesseract-ocr-chi-sim)", langs)
	}
	t := &tess{api: api, langs: langs}
	// Screens come without a resolution; 300 dpi keeps Tesseract's size heuristics sane and
	// quiet ("Invalid resolution 0 dpi").
	t.set("user_defined_dpi", "300")
	for k, v := range tessVars {
		t.set(k, v)
	}
	return t, nil
}

func (t *tess) set(name, value string) {
	cn, cv := C.CString(name), C.CString(value)
	defer C.free(unsafe.Pointer(cn))
	defer C.free(unsafe.Pointer(cv))
	C.TessBaseAPISetVariable(t.api, cn, cv)
}

// languages lists the languages whose traineddata t's data directory holds.
func (t *tess) languages() []string {
	vec := C.TessBaseAPIGetAvailableLanguagesAsVector(t.api)
	if vec == nil {
		return nil
	}
	defer C.TessDeleteTextArray(vec)
	var out []string
	for p := vec; *p != nil; p = (**C.char)(unsafe.Add(unsafe.Pointer(p), unsafe.Sizeof(*p))) {
		out = append(out, C.GoString(*p))
	}
	return out
}

// words recognises gray (8-bit, one channel, stride w) with page segmentation mode psm. A
// cancelled ctx stops Tesseract between words.
func (t *tess) words(ctx context.Context, gray []byte, w, h int, psm int) ([]tessWord, error) {
	if len(gray) < w*h || w <= 0 || h <= 0 {
		return nil, errors.New("tesseract: image buffer too small")
	}
	C.TessBaseAPISetPageSegMode(t.api, C.TessPageSegMode(psm))
	// Tesseract copies the pixels into its own image.
	C.TessBaseAPISetImage(t.api, (*C.uchar)(unsafe.Pointer(&gray[0])), C.int(w), C.int(h), 1, C.int(w))
	C.TessBaseAPISetSourceResolution(t.api, 300)
	defer C.TessBaseAPIClear(t.api)

	flag := (*C.int)(C.calloc(1, C.size_t(unsafe.Sizeof(C.int(0)))))
	defer C.free(unsafe.Pointer(flag))
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		select {
		case <-ctx.Done():
			C.tess_cancel(flag)
		case <-done:
		}
	}()
	var cw *C.tword
	var n C.int
	rc := C.tess_words(t.api, flag, &cw, &n)
	close(done)
	<-stopped
	if rc != 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return nil, errors.New("tesseract: recognition failed")
	}
	if cw == nil {
		return nil, nil
	}
	defer C.tess_free_words(cw, n)
	out := make([]tessWord, 0, int(n))
	for _, x := range unsafe.Slice(cw, int(n)) {
		out = append(out, tessWord{
			text: C.GoString(x.text),
			box:  image.Rect(int(x.x1), int(x.y1), int(x.x2), int(x.y2)),
			conf: float64(x.conf),
			line: int(x.line),
		})
	}
	return out, nil
}

// validWord says whether word is in the dictionary of t's languages.
func (t *tess) validWord(word string) bool {
	cw := C.CString(word)
	defer C.free(unsafe.Pointer(cw))
	return C.TessBaseAPIIsValidWord(t.api, cw) != 0
}

// leptonicaQuiet says whether Leptonica's messages are off.
func leptonicaQuiet() bool { return C.lept_severity() == C.L_SEVERITY_NONE }

func (t *tess) close() {
	C.TessBaseAPIEnd(t.api)
	C.TessBaseAPIDelete(t.api)
}
