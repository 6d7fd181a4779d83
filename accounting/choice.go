package accounting

import "fmt"

// ProjectChoice is what a volunteer chose for one project: that their
// computers always run it where it fits, never run it, or (the zero value)
// that Cobble decides. user_projects.choice holds the first two.
type ProjectChoice string

// The choices of a volunteer for a project.
const (
	ChoiceAlways    ProjectChoice = "choose"  // always run it where it fits
	ChoiceAutomatic ProjectChoice = ""        // Cobble decides; not stored
	ChoiceNever     ProjectChoice = "exclude" // never run it
)

// ProjectChoices lists every choice, in the order the settings page offers them.
var ProjectChoices = []ProjectChoice{ChoiceAlways, ChoiceAutomatic, ChoiceNever}

// String names the choice for people.
func (c ProjectChoice) String() string {
	switch c {
	case ChoiceAlways:
		return "Always"
	case ChoiceAutomatic:
		return "Automatic"
	case ChoiceNever:
		return "Never"
	}
	return fmt.Sprintf("Choice (%s)", string(c))
}

// Word is the choice as the settings form and SetProjectChoices spell it:
// always, automatic or never; "" for a value that is no choice.
func (c ProjectChoice) Word() string {
	switch c {
	case ChoiceAlways:
		return "always"
	case ChoiceAutomatic:
		return "automatic"
	case ChoiceNever:
		return "never"
	}
	return ""
}

// ProjectChoiceOf returns the choice whose Word is word; ok is false when
// no choice has that word.
func ProjectChoiceOf(word string) (c ProjectChoice, ok bool) {
	for _, c := range ProjectChoices {
		if c.Word() == word {
			return c, true
		}
	}
	return ChoiceAutomatic, false
}
