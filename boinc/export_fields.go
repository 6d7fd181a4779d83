package boinc

import "math"

// hostField names the children of <host> that fill an ExportHost.
type hostField uint8

const (
	fieldNone hostField = iota
	fieldID
	fieldUserID
	fieldCreateTime
	fieldRPCTime
	fieldNCPUs
	fieldTotalCredit
	fieldExpavgCredit
	fieldExpavgTime
	fieldPFPOps
	fieldHostCPID // the text fields come last, in the order of HostScanner.spans
	fieldOSName
	fieldPModel
)

// lookupField returns the field an element fills, or fieldNone.
func lookupField(name []byte) hostField {
	switch string(name) {
	case "id":
		return fieldID
	case "userid":
		return fieldUserID
	case "total_credit":
		return fieldTotalCredit
	case "expavg_credit":
		return fieldExpavgCredit
	case "expavg_time":
		return fieldExpavgTime
	case "host_cpid":
		return fieldHostCPID
	case "create_time":
		return fieldCreateTime
	case "rpc_time":
		return fieldRPCTime
	case "ncpus":
		return fieldNCPUs
	case "p_fpops":
		return fieldPFPOps
	case "os_name":
		return fieldOSName
	case "p_model":
		return fieldPModel
	}
	return fieldNone
}

// setField stores the text of the element for field f, found at b[at],
// in the current record. The text is still escaped unless decoded.
func (s *HostScanner) setField(f hostField, text []byte, decoded bool, at int) error {
	switch {
	case f >= fieldHostCPID:
		start := len(s.text)
		if decoded {
			s.text = append(s.text, text...)
		} else {
			s.text = AppendUnescaped(s.text, text)
		}
		s.spans[f-fieldHostCPID] = span{start, len(s.text)}
		return nil
	case f >= fieldTotalCredit:
		return s.setFloat(f, text, at)
	}
	return s.setInt(f, text, at)
}

// setInt stores an integer field.
func (s *HostScanner) setInt(f hostField, text []byte, at int) error {
	v, ok := parseExportInt(text)
	if !ok || f == fieldNCPUs && int64(int(v)) != v {
		return s.fail(at, "<%s> is not an integer: %s", fieldName(f), quoteClip(text))
	}
	h := &s.host
	switch f {
	case fieldID:
		if s.hasID {
			return s.fail(at, "second <id> in the record")
		}
		h.ID, s.hasID = v, true
	case fieldUserID:
		h.UserID, h.HasUserID = v, true
	case fieldCreateTime:
		h.CreateTime = v
	case fieldRPCTime:
		h.RPCTime = v
	case fieldNCPUs:
		h.NCPUs = int(v)
	}
	return nil
}

// setFloat stores a floating-point field. The credit fields must be
// finite; p_fpops may be "nan" or "inf" as C's printf writes them.
func (s *HostScanner) setFloat(f hostField, text []byte, at int) error {
	v, ok := parseExportFloat(text)
	if !ok || f != fieldPFPOps && (math.IsNaN(v) || math.IsInf(v, 0)) {
		return s.fail(at, "<%s> is not a number: %s", fieldName(f), quoteClip(text))
	}
	h := &s.host
	switch f {
	case fieldTotalCredit:
		h.TotalCredit = v
	case fieldExpavgCredit:
		h.ExpavgCredit = v
	case fieldExpavgTime:
		h.ExpavgTime = v
	case fieldPFPOps:
		h.PFPOps = v
	}
	return nil
}

// fieldName returns the element name of a numeric field.
func fieldName(f hostField) string {
	return [...]string{"", "id", "userid", "create_time", "rpc_time", "ncpus",
		"total_credit", "expavg_credit", "expavg_time", "p_fpops"}[f]
}
