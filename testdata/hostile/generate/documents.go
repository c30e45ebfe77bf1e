package main

import (
	"fmt"
	"strings"
)

func genOCGHidden(name string) []byte {
	w := newWriter(name, "1.7")
	w.onePage(page{
		catalog:   "/OCProperties << /OCGs [6 0 R] /D << /Name (Default) /OFF [6 0 R] /Order [6 0 R] >> >>",
		resources: "/Properties << /L1 6 0 R >>",
		content: textLines("VISIBLE BODY TEXT") +
			"/OC /L1 BDC\nBT\n/F1 18 Tf\n72 660 Td\n(HIDDEN LAYER TEXT) Tj\nET\nEMC\n",
	})
	w.obj(6, "<< /Type /OCG /Name (Hidden layer) >>")
	w.xrefTable(nil, "/Root 1 0 R")
	return w.bytes()
}

func genOCGVisible(name string) []byte {
	w := newWriter(name, "1.7")
	w.onePage(page{
		catalog:   "/OCProperties << /OCGs [6 0 R] /D << /Name (Default) /ON [6 0 R] /Order [6 0 R] >> >>",
		resources: "/Properties << /L1 6 0 R >>",
		content: textLines("VISIBLE BODY TEXT") +
			"/OC /L1 BDC\nBT\n/F1 18 Tf\n72 660 Td\n(LAYER TEXT SHOWN) Tj\nET\nEMC\n",
	})
	w.obj(6, "<< /Type /OCG /Name (Visible layer) >>")
	w.xrefTable(nil, "/Root 1 0 R")
	return w.bytes()
}

func genIncremental(name string) []byte {
	w := newWriter(name, "1.7")
	w.onePage(page{content: textLines("ORIGINAL REVISION TEXT")})
	prev := w.xrefTable(nil, "/Root 1 0 R")

	// Incremental update: a new content stream and a new version of the
	// page object pointing at it. Object 5 stays in the file, unreferenced.
	w.stream(6, "", []byte(textLines("UPDATED REVISION TEXT")))
	w.obj(3, fmt.Sprintf("<< /Type /Page /Parent 2 0 R %s /Resources << /Font << /F1 4 0 R >> >> /Contents 6 0 R >>", pageBox))
	w.xrefTable([]int{3, 6}, fmt.Sprintf("/Root 1 0 R /Prev %d", prev))
	return w.bytes()
}

func genPlaceholder(name string) []byte {
	w := newWriter(name, "1.7")
	w.onePage(page{content: textLines("Contract body line", "Sign here: {{signature}}")})
	w.xrefTable(nil, "/Root 1 0 R")
	return w.bytes()
}

func genAcroForm(name string) []byte {
	w := newWriter(name, "1.7")
	w.onePage(page{
		catalog: "/AcroForm 6 0 R",
		page:    "/Annots [7 0 R 9 0 R]",
		content: textLines("FORM DOCUMENT"),
	})
	w.obj(6, "<< /Fields [7 0 R 9 0 R] /DR << /Font << /Helv 4 0 R >> >> /DA (/Helv 0 Tf 0 g) >>")
	// Text field, merged field and widget.
	w.obj(7, "<< /Type /Annot /Subtype /Widget /FT /Tx /T (amount) /V (FORM VALUE 123) /DA (/Helv 14 Tf 0 g) "+
		"/Rect [72 600 372 630] /F 4 /P 3 0 R /MK << /BC [0 0 0] >> /AP << /N 8 0 R >> >>")
	w.stream(8, formXObject(300, 30, "<< /Font << /Helv 4 0 R >> >>"),
		[]byte("/Tx BMC\nq\n0 G 1 w 0.5 0.5 299 29 re S\nBT\n/Helv 14 Tf 0 g\n4 10 Td\n(FORM VALUE 123) Tj\nET\nQ\nEMC\n"))
	// Check box, checked.
	w.obj(9, "<< /Type /Annot /Subtype /Widget /FT /Btn /T (agree) /V /Yes /AS /Yes "+
		"/Rect [72 540 92 560] /F 4 /P 3 0 R /MK << /BC [0 0 0] >> /AP << /N << /Yes 10 0 R /Off 11 0 R >> >> >>")
	w.stream(10, formXObject(20, 20, ""),
		[]byte("q\n0 G 1 w 0.5 0.5 19 19 re S\n0 g 4 4 12 12 re f\n0 G 2 w 3 3 m 17 17 l S 3 17 m 17 3 l S\nQ\n"))
	w.stream(11, formXObject(20, 20, ""), []byte("q\n0 G 1 w 0.5 0.5 19 19 re S\nQ\n"))
	w.xrefTable(nil, "/Root 1 0 R")
	return w.bytes()
}

func genAnnotations(name string) []byte {
	w := newWriter(name, "1.7")
	helv := "<< /Font << /Helv 4 0 R >> >>"
	w.onePage(page{
		page:    "/Annots [6 0 R 8 0 R 10 0 R 12 0 R 13 0 R 14 0 R]",
		content: textLines("ANNOTATED DOCUMENT"),
	})
	// Visible FreeText.
	w.obj(6, "<< /Type /Annot /Subtype /FreeText /Rect [72 600 372 630] /Contents (ANNOTATION TEXT) "+
		"/DA (/Helv 14 Tf 0 g) /F 4 /P 3 0 R /AP << /N 7 0 R >> >>")
	w.stream(7, formXObject(300, 30, helv),
		[]byte("BT\n/Helv 14 Tf 0 g\n4 10 Td\n(ANNOTATION TEXT) Tj\nET\n"))
	// Square with a red outline.
	w.obj(8, "<< /Type /Annot /Subtype /Square /Rect [72 450 172 550] /C [1 0 0] /BS << /W 2 >> "+
		"/Contents (Red square) /F 4 /P 3 0 R /AP << /N 9 0 R >> >>")
	w.stream(9, formXObject(100, 100, ""), []byte("q\n1 0 0 RG 2 w\n1 1 98 98 re S\nQ\n"))
	// Hidden FreeText (/F 2 = Hidden).
	w.obj(10, "<< /Type /Annot /Subtype /FreeText /Rect [72 380 372 410] /Contents (HIDDEN ANNOTATION) "+
		"/DA (/Helv 14 Tf 0 g) /F 2 /P 3 0 R /AP << /N 11 0 R >> >>")
	w.stream(11, formXObject(300, 30, helv),
		[]byte("BT\n/Helv 14 Tf 0 g\n4 10 Td\n(HIDDEN ANNOTATION) Tj\nET\n"))
	// Sticky note with its popup.
	w.obj(12, "<< /Type /Annot /Subtype /Text /Rect [400 700 420 720] /Contents (Sticky note comment) "+
		"/T (Reviewer) /Name /Comment /Open false /F 28 /P 3 0 R /Popup 13 0 R >>")
	w.obj(13, "<< /Type /Annot /Subtype /Popup /Rect [420 600 600 700] /Parent 12 0 R /Open false /F 28 /P 3 0 R >>")
	// Link to a web address.
	w.obj(14, "<< /Type /Annot /Subtype /Link /Rect [72 300 272 330] /Border [0 0 0] /F 4 /P 3 0 R "+
		"/A << /S /URI /URI (https://example.com/) >> >>")
	w.xrefTable(nil, "/Root 1 0 R")
	return w.bytes()
}

func genJavaScript(name string) []byte {
	w := newWriter(name, "1.7")
	w.onePage(page{
		catalog: `/OpenAction << /S /JavaScript /JS (app.alert\('opened'\)) >> ` +
			`/Names << /JavaScript 6 0 R >> ` +
			`/AA << /WC << /S /JavaScript /JS (app.alert\('closing'\)) >> >>`,
		page:    `/AA << /O << /S /JavaScript /JS (app.alert\('page opened'\)) >> >> /Annots [8 0 R 9 0 R]`,
		content: textLines("SCRIPTED DOCUMENT"),
	})
	w.obj(6, "<< /Names [(docscript) 7 0 R] >>")
	w.obj(7, `<< /S /JavaScript /JS (app.alert\('document script'\)) >>`)
	w.obj(8, `<< /Type /Annot /Subtype /Link /Rect [72 600 272 630] /Border [0 0 0] /F 4 /P 3 0 R `+
		`/A << /S /JavaScript /JS (app.alert\('link clicked'\)) >> >>`)
	w.obj(9, `<< /Type /Annot /Subtype /Link /Rect [72 560 272 590] /Border [0 0 0] /F 4 /P 3 0 R `+
		`/A << /S /Launch /F (calc.exe) /Win << /F (calc.exe) >> /NewWindow true >> >>`)
	w.xrefTable(nil, "/Root 1 0 R")
	return w.bytes()
}

func genEmbedded(name string) []byte {
	w := newWriter(name, "1.7")
	w.onePage(page{
		catalog: "/Names << /EmbeddedFiles << /Names [(secret.txt) 6 0 R] >> >>",
		page:    "/Annots [8 0 R]",
		content: textLines("DOCUMENT WITH ATTACHMENT"),
	})
	secret := []byte("EMBEDDED SECRET")
	w.obj(6, "<< /Type /Filespec /F (secret.txt) /UF (secret.txt) /Desc (Document-level attachment) /EF << /F 7 0 R >> >>")
	w.stream(7, fmt.Sprintf("/Type /EmbeddedFile /Subtype /text#2Fplain /Params << /Size %d >>", len(secret)), secret)
	w.obj(8, "<< /Type /Annot /Subtype /FileAttachment /Rect [72 600 92 620] /Contents (Attached file) "+
		"/Name /PushPin /F 4 /P 3 0 R /FS 9 0 R >>")
	w.obj(9, "<< /Type /Filespec /F (annotation.txt) /UF (annotation.txt) /EF << /F 10 0 R >> >>")
	attached := []byte("ANNOTATION ATTACHMENT SECRET")
	w.stream(10, fmt.Sprintf("/Type /EmbeddedFile /Subtype /text#2Fplain /Params << /Size %d >>", len(attached)), attached)
	w.xrefTable(nil, "/Root 1 0 R")
	return w.bytes()
}

const xdp = `<?xml version="1.0" encoding="UTF-8"?>
<xdp:xdp xmlns:xdp="http://ns.adobe.com/xdp/">
<template xmlns="http://www.xfa.org/schema/xfa-template/3.3/">
<subform name="form1" layout="tb" locale="en_US">
<pageSet>
<pageArea name="Page1" id="Page1">
<contentArea x="0.25in" y="0.25in" w="8in" h="10.5in"/>
<medium stock="letter" short="8.5in" long="11in"/>
</pageArea>
</pageSet>
<subform w="8in" h="10.5in">
<draw name="Text1" x="1in" y="1in" w="6in" h="0.5in">
<value><text>XFA DYNAMIC CONTENT</text></value>
<font typeface="Helvetica" size="18pt"/>
</draw>
</subform>
</subform>
</template>
<xfa:datasets xmlns:xfa="http://www.xfa.org/schema/xfa-data/1.0/">
<xfa:data/>
</xfa:datasets>
</xdp:xdp>
`

func genXFA(name string) []byte {
	w := newWriter(name, "1.7")
	w.onePage(page{
		catalog: "/AcroForm << /Fields [] /XFA 6 0 R >> /NeedsRendering true",
		content: textLines("XFA PLACEHOLDER PAGE"),
	})
	w.stream(6, "", []byte(xdp))
	w.xrefTable(nil, "/Root 1 0 R")
	return w.bytes()
}

func genXRefStreamPlain(name string) []byte {
	w := newWriter(name, "1.5")
	w.onePage(page{content: textLines("PLAIN XREF STREAM")})
	w.xrefStream(6, "/Root 1 0 R")
	return w.bytes()
}

func genPages300(name string) []byte {
	w := newWriter(name, "1.7")
	// 1 catalog, 2 pages, 3 font, then page i uses 2i+2 (page) and 2i+3 (content).
	kids := make([]string, pagesCount)
	for i := 1; i <= pagesCount; i++ {
		kids[i-1] = fmt.Sprintf("%d 0 R", 2*i+2)
	}
	w.obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
	w.obj(2, fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), pagesCount))
	w.obj(3, fontHelvetica)
	for i := 1; i <= pagesCount; i++ {
		w.obj(2*i+2, fmt.Sprintf("<< /Type /Page /Parent 2 0 R %s /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", pageBox, 2*i+3))
		w.stream(2*i+3, "/Filter /FlateDecode", deflate([]byte(textLines(fmt.Sprintf("Page %d of %d", i, pagesCount)))))
	}
	w.xrefTable(nil, "/Root 1 0 R")
	return w.bytes()
}

func genClean(name string) []byte {
	w := newWriter(name, "1.7")
	w.onePage(page{content: textLines("CLEAN DOCUMENT", "Signature: {{sig}}")})
	w.xrefTable(nil, "/Root 1 0 R")
	return w.bytes()
}
