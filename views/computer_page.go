package views

// errs returns the errors of form name, or nil when another form failed.
func (d ComputerPage) errs(name string) Fields {
	if d.Form != name {
		return nil
	}
	return d.Errors
}

// nameValue is what the name field shows.
func (d ComputerPage) nameValue() string {
	if d.Form == "name" {
		return d.NewName
	}
	return d.Computer.Nickname
}
