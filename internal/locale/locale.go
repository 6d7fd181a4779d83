// Package locale holds Cobble's message catalogs, one TOML file per
// language beside this file (en.toml is the reference), and formats
// numbers and dates the way each language writes them. Every text a
// volunteer reads goes through a Lang: pages, form errors, emails, the
// notices feed and the messages of an RPC reply.
//
// A message has an id ("dashboard.title") and, where it counts
// something, plural forms chosen by the value of its Count placeholder.
// Placeholders are written {{.Name}}; T takes them as name, value pairs.
package locale

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/nicksnyder/go-i18n/v2/i18n"
	"github.com/nicksnyder/go-i18n/v2/i18n/template"
	"golang.org/x/text/language"
)

//go:embed *.toml
var catalogFiles embed.FS

// Reference is the language every other catalog is checked against, and
// the one a missing message falls back to.
const Reference = "en"

// Lang is one language's catalog, ready to use. It is safe for concurrent
// use.
type Lang struct {
	// Code is the catalog's file name without ".toml": "en", "de".
	Code string
	// Tag is Code as a BCP 47 tag.
	Tag language.Tag
	// Name is the language's name in itself: "English", "Deutsch".
	Name string

	localizer *i18n.Localizer
	messages  map[string]*i18n.Message
	// plain holds the messages without placeholders or plural forms, so
	// that the most common lookup is one map read.
	plain          map[string]string
	decimal, group string
	months         [12]string
	weekdays       [7]string
	// The date patterns, read once (Pattern).
	date, dayMonth, dateTime func(values ...string) string
}

// Catalog is every language Cobble speaks.
type Catalog struct {
	langs map[string]*Lang
	// all is every language, the reference first and then by code; the
	// matcher's tags are in this order.
	all     []*Lang
	matcher language.Matcher
}

var (
	loadOnce sync.Once
	loaded   *Catalog
	loadErr  error
)

// Default returns the catalog embedded in the binary. It panics when the
// embedded files do not parse, which the package's tests rule out.
func Default() *Catalog {
	loadOnce.Do(func() { loaded, loadErr = Load(catalogFiles) })
	if loadErr != nil {
		panic(loadErr)
	}
	return loaded
}

// English returns the reference language of the embedded catalog: that of
// the admin pages, the logs and what Cobble says before it knows who reads.
func English() *Lang { return Default().langs[Reference] }

// Load reads every *.toml file at the top of fsys as one language's
// catalog, named by its code ("de.toml", "pt-BR.toml"). Reference must be
// among them.
func Load(fsys fs.FS) (*Catalog, error) {
	names, err := fs.Glob(fsys, "*.toml")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	bundle := i18n.NewBundle(language.English)
	bundle.RegisterUnmarshalFunc("toml", toml.Unmarshal)
	c := &Catalog{langs: map[string]*Lang{}}
	for _, name := range names {
		buf, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		code := strings.TrimSuffix(path.Base(name), ".toml")
		tag, err := language.Parse(code)
		if err != nil {
			return nil, fmt.Errorf("catalog %s: %q is not a language tag: %w", name, code, err)
		}
		msgs, err := bundle.ParseMessageBytes(tag, buf, toml.Unmarshal)
		if err != nil {
			return nil, fmt.Errorf("catalog %s: %w", name, err)
		}
		l := &Lang{Code: code, Tag: tag, messages: map[string]*i18n.Message{}, plain: map[string]string{}}
		for _, m := range msgs {
			l.messages[m.ID] = m
			if isPlain(m) {
				l.plain[m.ID] = m.Other
			}
		}
		c.langs[code] = l
		if code == Reference {
			c.all = append([]*Lang{l}, c.all...)
		} else {
			c.all = append(c.all, l)
		}
	}
	if c.langs[Reference] == nil {
		return nil, fmt.Errorf("no catalog for the reference language %q", Reference)
	}
	tags := make([]language.Tag, len(c.all))
	for i, l := range c.all {
		l.localizer = i18n.NewLocalizer(bundle, l.Code, Reference)
		if err := l.readFormats(); err != nil {
			return nil, fmt.Errorf("catalog %s.toml: %w", l.Code, err)
		}
		tags[i] = l.Tag
	}
	c.matcher = language.NewMatcher(tags)
	return c, nil
}

func isPlain(m *i18n.Message) bool {
	return m.Zero == "" && m.One == "" && m.Two == "" && m.Few == "" && m.Many == "" &&
		!strings.Contains(m.Other, "{{")
}

// readFormats reads the messages that say how the language writes
// numbers and dates.
func (l *Lang) readFormats() error {
	l.Name = l.T("language.name")
	l.decimal, l.group = l.T("format.decimal_separator"), l.T("format.group_separator")
	months := strings.Fields(l.T("format.months"))
	if len(months) != 12 {
		return fmt.Errorf("format.months names %d months, not 12", len(months))
	}
	copy(l.months[:], months)
	weekdays := strings.Fields(l.T("format.weekdays"))
	if len(weekdays) != 7 {
		return fmt.Errorf("format.weekdays names %d days, not 7", len(weekdays))
	}
	copy(l.weekdays[:], weekdays)
	l.date = l.Pattern("format.date", "Day", "Month", "Year")
	l.dayMonth = l.Pattern("format.day_month", "Day", "Month")
	l.dateTime = l.Pattern("format.date_time", "Date", "Time", "Zone")
	return nil
}

// Pattern returns message id with its placeholders names left open, as a
// function that fills them, in that order: for a message written many
// times on a page (each day of a table or a chart), which T would fill
// through its template each time. The message may use other placeholders
// of no value; a name beyond the 31st is not filled.
func (l *Lang) Pattern(id string, names ...string) func(values ...string) string {
	pairs := make([]any, 0, 2*len(names))
	for i, n := range names {
		pairs = append(pairs, n, string(rune(i+1))) // control characters no message holds
	}
	pattern := l.T(id, pairs...)
	return func(values ...string) string {
		b := make([]byte, 0, len(pattern)+32)
		for i := 0; i < len(pattern); i++ {
			if c := pattern[i]; c >= 1 && int(c) <= len(values) && int(c) <= len(names) {
				b = append(b, values[c-1]...)
			} else {
				b = append(b, c)
			}
		}
		return string(b)
	}
}

// Langs returns every language, the reference first and then by code.
// The slice is the catalog's own: callers read it and do not change it.
func (c *Catalog) Langs() []*Lang { return c.all }

// Get returns the language with code, or nil when Cobble has none.
func (c *Catalog) Get(code string) *Lang { return c.langs[code] }

// Lookup returns the language with code, or the reference language.
func (c *Catalog) Lookup(code string) *Lang {
	if l := c.langs[code]; l != nil {
		return l
	}
	return c.langs[Reference]
}

// Match returns the language that fits an Accept-Language header best,
// the reference language when none fits or the header does not parse.
func (c *Catalog) Match(acceptLanguage string) *Lang {
	prefs, _, err := language.ParseAcceptLanguage(acceptLanguage)
	if err != nil || len(prefs) == 0 {
		return c.langs[Reference]
	}
	_, i, conf := c.matcher.Match(prefs...)
	if conf == language.No {
		return c.langs[Reference]
	}
	return c.all[i]
}

// strictParser fills placeholders, and fails on one the caller did not
// give rather than writing "<no value>".
var strictParser = &template.TextParser{Option: "missingkey=error"}

// T returns message id in l, with its placeholders filled from pairs of
// name and value ("Count", 3). A Count, a whole number or a decimal one,
// chooses the plural form. Integer values are written with the
// language's separators. A message l lacks is taken from the reference
// language. A message no catalog has, a placeholder not given, or pairs
// that are not name, value, … come out as "⟦id⟧", so that it shows on
// the page and the tests find it.
func (l *Lang) T(id string, pairs ...any) string {
	if len(pairs) == 0 {
		if s, ok := l.plain[id]; ok {
			return s
		}
	}
	if len(pairs)%2 != 0 {
		return "⟦" + id + "⟧"
	}
	data := make(map[string]any, len(pairs)/2)
	var count any
	for i := 0; i < len(pairs); i += 2 {
		name, ok := pairs[i].(string)
		if !ok {
			return "⟦" + id + "⟧"
		}
		v := pairs[i+1]
		if name == "Count" {
			count = pluralCount(v)
		}
		data[name] = l.value(v)
	}
	s, err := l.localizer.Localize(&i18n.LocalizeConfig{MessageID: id, TemplateData: data, PluralCount: count,
		TemplateParser: strictParser})
	var fallback *i18n.MessageNotFoundErr
	if s == "" && l.messages[id] == nil || err != nil && !errors.As(err, &fallback) {
		return "⟦" + id + "⟧"
	}
	return s
}

// pluralCount is v as the plural rules read it: a whole number, or a
// decimal one as its digits ("1.5" takes another form than 1).
func pluralCount(v any) any {
	switch n := v.(type) {
	case int, int8, int16, int32, int64:
		return n
	case uint, uint8, uint16, uint32, uint64:
		return fmt.Sprint(n)
	case float32, float64, Credit:
		return strconv.FormatFloat(reflect.ValueOf(n).Float(), 'f', -1, 64)
	}
	return v
}

// Credit is an amount of credit as a placeholder's value: it is written
// as Lang.Credit writes it.
type Credit float64

// Date is a day as a placeholder's value: it is written as Lang.Date
// writes it.
type Date time.Time

// In writes the day in l.
func (d Date) In(l *Lang) string { return l.Date(time.Time(d)) }

// value formats a placeholder's value: integers with the language's
// separators, Credit as credit, a Msg (or anything else with an In
// method) written in l, everything else as fmt does.
func (l *Lang) value(v any) any {
	switch n := v.(type) {
	case Credit:
		return l.Credit(float64(n))
	case int, int8, int16, int32, int64:
		return l.Int(reflect.ValueOf(n).Int())
	case uint, uint8, uint16, uint32, uint64:
		return group(strconv.FormatUint(reflect.ValueOf(n).Uint(), 10), l.group)
	case float32, float64:
		return l.Shortest(reflect.ValueOf(n).Float(), 6)
	case interface{ In(*Lang) string }:
		return n.In(l)
	}
	return v
}

// Day is a calendar day as a message's value: each language writes it as
// its Date does ("7 Dec 2026", "7. Dez. 2026").
type Day time.Time

// In writes d in l.
func (d Day) In(l *Lang) string { return l.Date(time.Time(d)) }

// Has reports whether the reference catalog has message id.
func (c *Catalog) Has(id string) bool { return c.langs[Reference].messages[id] != nil }

// Msg is a message not yet put into words: what the domain hands the
// pages, which write it in the reader's language.
type Msg struct {
	ID    string
	Pairs []any // placeholder name, value, …
	// text is the words of a Msg made by Text, when ID is "".
	text string
}

// M makes a Msg of catalog message id.
func M(id string, pairs ...any) Msg { return Msg{ID: id, Pairs: pairs} }

// Text makes a Msg of words that are not translated: those only admins
// read (the admin pages are in English).
func Text(s string) Msg { return Msg{text: s} }

// In writes m in l.
func (m Msg) In(l *Lang) string {
	if m.ID == "" {
		return m.text
	}
	return l.T(m.ID, m.Pairs...)
}

// IsZero reports whether m says nothing.
func (m Msg) IsZero() bool { return m.ID == "" && m.text == "" }

// String writes m in the reference language, for logs and the command
// line.
func (m Msg) String() string { return m.In(English()) }

// Int writes n with the language's group separator: 1,234 or 1.234.
func (l *Lang) Int(n int64) string { return group(strconv.FormatInt(n, 10), l.group) }

// Number writes v with decimals digits after the language's decimal
// separator, its whole part grouped: 1,234.5 or 1.234,5. NaN and the
// infinities are a dash.
func (l *Lang) Number(v float64, decimals int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "–"
	}
	whole, frac, _ := strings.Cut(strconv.FormatFloat(v, 'f', decimals, 64), ".")
	if frac == "" {
		return group(whole, l.group)
	}
	return group(whole, l.group) + l.decimal + frac
}

// Shortest writes v with as few decimals as it needs, at most max (all it
// takes when max < 0): 1.5 and 2 in English, 1,5 and 2 in German.
func (l *Lang) Shortest(v float64, max int) string {
	s := strconv.FormatFloat(v, 'f', max, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	_, frac, _ := strings.Cut(s, ".")
	return l.Number(v, len(frac))
}

// Credit writes an amount of credit for reading: whole from 100 up, and
// below with at most two decimals, no trailing zeros ("750", "9,011",
// "42.5"), so that amounts in one column read alike. None is "0"; an
// amount too small to show is "< 0.01".
func (l *Lang) Credit(v float64) string {
	if v == 0 {
		return "0"
	}
	if math.Abs(v) >= 100 {
		return l.Number(math.Round(v), 0)
	}
	if s := l.Shortest(v, 2); strings.Trim(s, "-0") != "" {
		return s
	}
	return "< " + l.Number(0.01, 2)
}

// Month returns the language's abbreviated name of month m.
func (l *Lang) Month(m time.Month) string { return l.months[m-1] }

// Weekday returns the language's abbreviated name of day d.
func (l *Lang) Weekday(d time.Weekday) string { return l.weekdays[d] }

// Date writes a calendar day: 25 Nov 2026, or 25. Nov. 2026.
func (l *Lang) Date(t time.Time) string {
	return l.date(strconv.Itoa(t.Day()), l.Month(t.Month()), strconv.Itoa(t.Year()))
}

// DayMonth writes a day without its year: 25 Nov, or 25. Nov.
func (l *Lang) DayMonth(t time.Time) string {
	return l.dayMonth(strconv.Itoa(t.Day()), l.Month(t.Month()))
}

// DateTime writes an instant as its day and time in t's location: 25 Nov
// 2026, 14:05 UTC.
func (l *Lang) DateTime(t time.Time) string {
	return l.dateTime(l.Date(t), t.Format("15:04"), t.Format("MST"))
}

func group(whole, sep string) string {
	sign := ""
	if strings.HasPrefix(whole, "-") {
		sign, whole = "-", whole[1:]
	}
	if len(whole) <= 3 {
		return sign + whole
	}
	var b strings.Builder
	for i, c := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteString(sep)
		}
		b.WriteRune(c)
	}
	return sign + b.String()
}

type ctxKey struct{}

// With returns ctx carrying l, for the templates and texts rendered with it.
func With(ctx context.Context, l *Lang) context.Context { return context.WithValue(ctx, ctxKey{}, l) }

// From returns the language ctx carries, or the reference language.
func From(ctx context.Context) *Lang {
	if l, ok := ctx.Value(ctxKey{}).(*Lang); ok && l != nil {
		return l
	}
	return English()
}

// Texts returns each message of l by id, in its "other" form (the only
// one of a message without plural forms), placeholders unfilled: for
// tests that look for untranslated words.
func (l *Lang) Texts() map[string]string {
	out := make(map[string]string, len(l.messages))
	for id, m := range l.messages {
		out[id] = m.Other
	}
	return out
}
