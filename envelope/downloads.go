package envelope

// ItemFile is which stored file of an envelope item a download gives.
type ItemFile string

// The files of an item.
const (
	ItemFileOriginal = ItemFile("original") // the file as uploaded
	ItemFileCurrent  = ItemFile("current")  // the document as it is now: the normalised one signers are shown
	ItemFileSealed   = ItemFile("sealed")   // the sealed document of a COMPLETED envelope
)

// DownloadFile decides which file GET /envelope/item/{id}/download gives for version of an item
// of an envelope in status s, as Documenso does: an empty version is "signed", its default;
// "original" is the file as uploaded; "signed" is the sealed document once the envelope is
// COMPLETED, and before that (or when it ended otherwise) the document as it is now. Any other
// version is a problem at "version".
func DownloadFile(version string, s Status) (ItemFile, error) {
	switch version {
	case "original":
		return ItemFileOriginal, nil
	case "", "signed":
		if s == StatusCompleted {
			return ItemFileSealed, nil
		}
		return ItemFileCurrent, nil
	}
	return "", Invalid("version", `must be "original" or "signed", got %q`, version)
}
