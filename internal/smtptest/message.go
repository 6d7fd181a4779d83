package smtptest

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"net/textproto"
	"regexp"
	"slices"
	"strings"
)

// Message is a message the server accepted.
type Message struct {
	// From and To are the envelope sender (MAIL FROM) and recipients
	// (RCPT TO), in the order the client sent them.
	From string
	To   []string
	// Data is the message exactly as received after DATA (RFC 5322, CRLF
	// line endings, dot-stuffing undone).
	Data []byte
	// Header is the message header as parsed by net/mail. Values are as
	// received: encoded words (RFC 2047) are not decoded, which
	// mime.WordDecoder's DecodeHeader does.
	Header mail.Header
	// Text and HTML are the decoded bodies of the first text/plain and
	// first text/html parts that are not attachments, searched through
	// nested multipart bodies; for a single-part text/plain message Text
	// is its body. Transfer encodings (quoted-printable, base64) are
	// undone, the charset is taken to be UTF-8 and CRLF line endings
	// become "\n". Either is empty if the message has no such part.
	Text, HTML string
}

// linkPattern matches an http or https URL up to the next space, quote or
// angle bracket.
var linkPattern = regexp.MustCompile(`https?://[^\s<>"]+`)

// Links returns every http:// or https:// URL found in m.Text, in order.
// Punctuation that ends a sentence or closes a bracket right after a URL
// is not taken as part of it.
func (m Message) Links() []string {
	var links []string
	for _, link := range linkPattern.FindAllString(m.Text, -1) {
		links = append(links, strings.TrimRight(link, `.,;:!?'")]}`))
	}
	return links
}

// clone returns a deep copy of m, so that callers cannot change what the
// server keeps.
func (m Message) clone() Message {
	m.To = slices.Clone(m.To)
	m.Data = bytes.Clone(m.Data)
	if m.Header != nil {
		h := make(mail.Header, len(m.Header))
		for k, v := range m.Header {
			h[k] = slices.Clone(v)
		}
		m.Header = h
	}
	return m
}

// parseMessage parses data, received with the envelope from and to.
func parseMessage(from string, to []string, data []byte) (Message, error) {
	parsed, err := mail.ReadMessage(bytes.NewReader(data))
	if err != nil {
		return Message{}, err
	}
	var b bodies
	if err := b.walk(textproto.MIMEHeader(parsed.Header), parsed.Body); err != nil {
		return Message{}, err
	}
	return Message{
		From:   from,
		To:     slices.Clone(to),
		Data:   data,
		Header: parsed.Header,
		Text:   b.text,
		HTML:   b.html,
	}, nil
}

// bodies collects a message's text and HTML bodies.
type bodies struct {
	text, html string
	seenText   bool
	seenHTML   bool
}

// walk collects the bodies found in the entity with header h and body r.
func (b *bodies) walk(h textproto.MIMEHeader, r io.Reader) error {
	ctype := h.Get("Content-Type")
	if ctype == "" {
		ctype = "text/plain"
	}
	mediaType, params, err := mime.ParseMediaType(ctype)
	if err != nil {
		return fmt.Errorf("content type %q: %w", ctype, err)
	}
	if strings.HasPrefix(mediaType, "multipart/") {
		return b.walkMultipart(r, params["boundary"])
	}
	if isAttachment(h) {
		return nil
	}
	var dst *string
	switch {
	case mediaType == "text/plain" && !b.seenText:
		dst, b.seenText = &b.text, true
	case mediaType == "text/html" && !b.seenHTML:
		dst, b.seenHTML = &b.html, true
	default:
		return nil
	}
	body, err := decode(r, h.Get("Content-Transfer-Encoding"))
	if err != nil {
		return fmt.Errorf("%s part: %w", mediaType, err)
	}
	*dst = strings.ReplaceAll(body, "\r\n", "\n")
	return nil
}

// walkMultipart walks each part of a multipart body.
func (b *bodies) walkMultipart(r io.Reader, boundary string) error {
	if boundary == "" {
		return errors.New("multipart body without a boundary")
	}
	mr := multipart.NewReader(r, boundary)
	for {
		// NextRawPart leaves quoted-printable to decode, like base64.
		p, err := mr.NextRawPart()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := b.walk(p.Header, p); err != nil {
			return err
		}
	}
}

// isAttachment reports whether h marks its entity as an attachment.
func isAttachment(h textproto.MIMEHeader) bool {
	disposition, _, err := mime.ParseMediaType(h.Get("Content-Disposition"))
	return err == nil && disposition == "attachment"
}

// decode reads r and undoes the Content-Transfer-Encoding cte.
func decode(r io.Reader, cte string) (string, error) {
	switch strings.ToLower(strings.TrimSpace(cte)) {
	case "quoted-printable":
		r = quotedprintable.NewReader(r)
	case "base64":
		r = base64.NewDecoder(base64.StdEncoding, r)
	case "", "7bit", "8bit", "binary":
	default:
		return "", fmt.Errorf("unknown Content-Transfer-Encoding %q", cte)
	}
	body, err := io.ReadAll(r)
	if err != nil {
		return "", fmt.Errorf("%s: %w", cte, err)
	}
	return string(body), nil
}
