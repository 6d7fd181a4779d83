package accounting

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/cobble-am/cobble/internal/locale"
)

// KeywordCategory says what a keyword describes: a science area or where
// the research is done.
type KeywordCategory int

// BOINC's keyword categories, with BOINC's numbers.
const (
	CategoryScience  KeywordCategory = 0
	CategoryLocation KeywordCategory = 1
)

// Keyword is one entry of BOINC's keyword vocabulary. IDs are BOINC's own,
// so that the ids in a reply's <user_keywords> mean the same thing to the
// client and to every project.
type Keyword struct {
	ID       int
	Name     string
	Category KeywordCategory
	Parent   int // 0 for a top-level keyword
	Level    int // 0 for a top-level keyword, 1 for its children, ...
}

// kw builds a vocabulary entry.
func kw(id int, cat KeywordCategory, level, parent int, name string) Keyword {
	return Keyword{ID: id, Name: name, Category: cat, Level: level, Parent: parent}
}

// keywordList is BOINC's keyword vocabulary, parents before children.
// Three institutes are filed under their own country: BOINC's list gives
// Charles University the parent Germany and the two Russian institutes the
// parent Spain, which are slips in that list.
var keywordList = []Keyword{
	kw(1, CategoryScience, 0, 0, "Astronomy"),
	kw(2, CategoryScience, 1, 1, "Search for Extraterrestrial Intelligence"),
	kw(3, CategoryScience, 1, 1, "Detection and study of pulsars"),
	kw(4, CategoryScience, 1, 1, "Detection and study of gravitational waves"),
	kw(5, CategoryScience, 1, 1, "Cosmology"),
	kw(6, CategoryScience, 0, 0, "Physics"),
	kw(7, CategoryScience, 1, 6, "Particle physics"),
	kw(8, CategoryScience, 1, 6, "Nanoscience"),
	kw(9, CategoryScience, 0, 0, "Biology and Medicine"),
	kw(10, CategoryScience, 1, 9, "Drug discovery"),
	kw(11, CategoryScience, 1, 9, "Protein research"),
	kw(12, CategoryScience, 1, 9, "Genetics and Phylogeny"),
	kw(13, CategoryScience, 1, 9, "Disease research"),
	kw(17, CategoryScience, 2, 13, "Diabetes research"),
	kw(14, CategoryScience, 2, 13, "Cancer research"),
	kw(18, CategoryScience, 3, 14, "Prostate cancer research"),
	kw(19, CategoryScience, 3, 14, "Breast cancer research"),
	kw(15, CategoryScience, 0, 0, "Mathematics and Computer Science"),
	kw(32, CategoryScience, 1, 15, "Number Theory"),
	kw(33, CategoryScience, 1, 15, "Cryptography"),
	kw(16, CategoryScience, 0, 0, "Artificial Intelligence and Cognitive Science"),
	kw(29, CategoryScience, 0, 0, "Earth sciences"),
	kw(34, CategoryScience, 1, 29, "Environmental research"),
	kw(35, CategoryScience, 1, 29, "Climate research"),

	kw(20, CategoryLocation, 0, 0, "Europe"),
	kw(27, CategoryLocation, 1, 20, "CERN"),
	kw(36, CategoryLocation, 1, 20, "Czech Republic"),
	kw(37, CategoryLocation, 2, 36, "Charles University in Prague"),
	kw(21, CategoryLocation, 1, 20, "Germany"),
	kw(26, CategoryLocation, 2, 21, "Albert Einstein Institute for Gravitational Physics"),
	kw(38, CategoryLocation, 2, 21, "Rechenkraft.net e.V"),
	kw(39, CategoryLocation, 2, 21, "Hochschule RheinMain University of Applied Sciences"),
	kw(40, CategoryLocation, 1, 20, "Hungary"),
	kw(41, CategoryLocation, 1, 20, "Ireland"),
	kw(42, CategoryLocation, 2, 41, "University College Dublin"),
	kw(43, CategoryLocation, 1, 20, "Poland"),
	kw(44, CategoryLocation, 1, 20, "Russia"),
	kw(45, CategoryLocation, 2, 44, "Southwest State University, Russia"),
	kw(46, CategoryLocation, 2, 44, "Russian Academy of Science"),
	kw(30, CategoryLocation, 1, 20, "Spain"),
	kw(31, CategoryLocation, 2, 30, "San Jorge University, Zaragoza, Spain"),
	kw(47, CategoryLocation, 2, 30, "Barcelona Biomedical Research Park"),
	kw(48, CategoryLocation, 1, 20, "United Kingdom"),
	kw(49, CategoryLocation, 2, 48, "Oxford University"),
	kw(22, CategoryLocation, 0, 0, "Asia"),
	kw(50, CategoryLocation, 1, 22, "China"),
	kw(23, CategoryLocation, 0, 0, "Americas"),
	kw(24, CategoryLocation, 1, 23, "United States"),
	kw(25, CategoryLocation, 2, 24, "University of California, Berkeley"),
	kw(28, CategoryLocation, 2, 24, "University of Washington"),
	kw(51, CategoryLocation, 2, 24, "University of Dayton"),
	kw(52, CategoryLocation, 2, 24, "Wright State University"),
	kw(53, CategoryLocation, 2, 24, "University of Southern California"),
	kw(54, CategoryLocation, 2, 24, "California State University Fullerton"),
	kw(55, CategoryLocation, 2, 24, "Arizona State University"),
}

// keywordAliases are short names people type for keywords whose full name
// is long; they map to the same ids.
var keywordAliases = map[string]int{
	"seti": 2, "pulsars": 3, "gravitational waves": 4, "biology": 9, "medicine": 9,
	"biomedicine": 9, "proteins": 11, "genetics": 12, "disease": 13, "cancer": 14,
	"diabetes": 17, "mathematics": 15, "math": 15, "computer science": 15,
	"ai": 16, "earth science": 29, "environment": 34, "climate": 35, "astrophysics": 1,
	"usa": 24, "us": 24, "uk": 48,
}

// KeywordAnswer is a volunteer's answer for one keyword: whether they
// want work on what it names.
type KeywordAnswer string

// The answers, as forms send them and user_keywords stores yes and no.
const (
	KeywordYes   KeywordAnswer = "yes"   // prefer projects with the keyword
	KeywordMaybe KeywordAnswer = "maybe" // no preference: the same as no answer, not stored
	KeywordNo    KeywordAnswer = "no"    // never projects with the keyword
)

// KeywordAnswers lists every answer, in the order the settings page
// offers them.
var KeywordAnswers = []KeywordAnswer{KeywordYes, KeywordMaybe, KeywordNo}

// Valid reports whether a is one of KeywordAnswers.
func (a KeywordAnswer) Valid() bool { return slices.Contains(KeywordAnswers, a) }

// Keywords returns BOINC's keyword vocabulary, parents before their
// children. The slice is a copy.
func Keywords() []Keyword { return slices.Clone(keywordList) }

// KeywordByID returns the keyword with BOINC's id, and whether there is one.
func KeywordByID(id int) (Keyword, bool) {
	i, ok := keywordIndex[id]
	if !ok {
		return Keyword{}, false
	}
	return keywordList[i], true
}

// keywordIndex maps a keyword id to its place in keywordList. Read only.
var keywordIndex = func() map[int]int {
	m := make(map[int]int, len(keywordList))
	for i, k := range keywordList {
		m[k.ID] = i
	}
	return m
}()

// Ancestors returns the ids of k's parent, its parent's parent, and so on.
func (k Keyword) Ancestors() []int {
	var out []int
	for p := k.Parent; p != 0; {
		out = append(out, p)
		parent, _ := KeywordByID(p)
		p = parent.Parent
	}
	return out
}

// ParseKeywords reads a comma-separated list of keywords, each given by
// BOINC's id ("11") or by name ("Protein research", "proteins"; letter
// case does not matter). It returns the ids in the order given, without
// repeats, or a *ValidationError (field "keywords") naming what it does
// not know.
func ParseKeywords(text string) ([]int, error) {
	var ids []int
	var unknown []string
	for _, f := range strings.Split(text, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		id, ok := keywordID(f)
		if !ok {
			unknown = append(unknown, strconv.Quote(f))
			continue
		}
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	if len(unknown) > 0 {
		return nil, &ValidationError{Fields: map[string]locale.Msg{"keywords": locale.Text(fmt.Sprintf(
			"Unknown keyword %s: use BOINC's keyword ids or names, such as 11 or Protein research.",
			strings.Join(unknown, ", ")))}}
	}
	return ids, nil
}

// keywordID finds one keyword by id or name.
func keywordID(s string) (int, bool) {
	if n, err := strconv.Atoi(s); err == nil {
		_, ok := KeywordByID(n)
		return n, ok
	}
	name := strings.ToLower(strings.Join(strings.Fields(s), " "))
	for _, k := range keywordList {
		if strings.ToLower(k.Name) == name {
			return k.ID, true
		}
	}
	id, ok := keywordAliases[name]
	return id, ok
}

// FormatKeywords is the text ParseKeywords reads back: the names, comma
// separated. Names that hold a comma are written as their id.
func FormatKeywords(ids []int) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		k, ok := KeywordByID(id)
		if ok && !strings.Contains(k.Name, ",") {
			parts[i] = k.Name
		} else {
			parts[i] = strconv.Itoa(id)
		}
	}
	return strings.Join(parts, ", ")
}
