package envelope

import "slices"

// Type says whether an envelope is a document to be signed or a template documents are made from.
type Type string

const (
	TypeDocument = Type("DOCUMENT")
	TypeTemplate = Type("TEMPLATE")
)

// Types lists every Type.
func Types() []Type { return []Type{TypeDocument, TypeTemplate} }

// Status is where an envelope is in its life.
type Status string

const (
	StatusDraft     = Status("DRAFT")     // being prepared; no workflow runs
	StatusPending   = Status("PENDING")   // distributed; its workflow runs
	StatusCompleted = Status("COMPLETED") // every recipient who must act did
	StatusRejected  = Status("REJECTED")  // a recipient rejected it
	StatusCancelled = Status("CANCELLED") // the owner cancelled it
)

// Statuses lists every Status.
func Statuses() []Status {
	return []Status{StatusDraft, StatusPending, StatusCompleted, StatusRejected, StatusCancelled}
}

// Finished reports whether no recipient can act on the envelope any more.
func (s Status) Finished() bool {
	return s == StatusCompleted || s == StatusRejected || s == StatusCancelled
}

// Source says how an envelope was created.
type Source string

const (
	SourceDocument           = Source("DOCUMENT")
	SourceTemplate           = Source("TEMPLATE")
	SourceTemplateDirectLink = Source("TEMPLATE_DIRECT_LINK")
)

// Sources lists every Source.
func Sources() []Source { return []Source{SourceDocument, SourceTemplate, SourceTemplateDirectLink} }

// Visibility says which team members see an envelope.
type Visibility string

const (
	VisibilityEveryone        = Visibility("EVERYONE")
	VisibilityManagerAndAbove = Visibility("MANAGER_AND_ABOVE")
	VisibilityAdmin           = Visibility("ADMIN")
)

// Visibilities lists every Visibility.
func Visibilities() []Visibility {
	return []Visibility{VisibilityEveryone, VisibilityManagerAndAbove, VisibilityAdmin}
}

// TemplateType is the audience of a template.
type TemplateType string

const (
	TemplateTypePublic       = TemplateType("PUBLIC")
	TemplateTypePrivate      = TemplateType("PRIVATE")
	TemplateTypeOrganisation = TemplateType("ORGANISATION")
)

// TemplateTypes lists every TemplateType.
func TemplateTypes() []TemplateType {
	return []TemplateType{TemplateTypePublic, TemplateTypePrivate, TemplateTypeOrganisation}
}

// TeamRole is a team member's role. It decides which visibilities the member sees.
type TeamRole string

const (
	TeamRoleMember  = TeamRole("MEMBER")
	TeamRoleManager = TeamRole("MANAGER")
	TeamRoleAdmin   = TeamRole("ADMIN")
)

// TeamRoles lists every TeamRole.
func TeamRoles() []TeamRole { return []TeamRole{TeamRoleMember, TeamRoleManager, TeamRoleAdmin} }

// VisibleTo returns the visibilities a member with this role may see.
func (r TeamRole) VisibleTo() []Visibility {
	switch r {
	case TeamRoleAdmin:
		return []Visibility{VisibilityEveryone, VisibilityManagerAndAbove, VisibilityAdmin}
	case TeamRoleManager:
		return []Visibility{VisibilityEveryone, VisibilityManagerAndAbove}
	default:
		return []Visibility{VisibilityEveryone}
	}
}

// CanSee reports whether a member with this role sees an envelope with visibility v.
func (r TeamRole) CanSee(v Visibility) bool { return slices.Contains(r.VisibleTo(), v) }

// Role is what a recipient does with the envelope.
type Role string

const (
	RoleSigner    = Role("SIGNER")    // must sign
	RoleApprover  = Role("APPROVER")  // must approve; gates later signers
	RoleViewer    = Role("VIEWER")    // must view
	RoleCC        = Role("CC")        // receives the completed copy; never blocks
	RoleAssistant = Role("ASSISTANT") // fills fields for later recipients
)

// Roles lists every Role.
func Roles() []Role { return []Role{RoleCC, RoleSigner, RoleViewer, RoleApprover, RoleAssistant} }

// ReadStatus says whether a recipient opened the envelope.
type ReadStatus string

const (
	ReadStatusNotOpened = ReadStatus("NOT_OPENED")
	ReadStatusOpened    = ReadStatus("OPENED")
)

// SigningStatus says whether a recipient acted.
type SigningStatus string

const (
	SigningStatusNotSigned = SigningStatus("NOT_SIGNED")
	SigningStatusSigned    = SigningStatus("SIGNED")
	SigningStatusRejected  = SigningStatus("REJECTED")
)

// SendStatus says whether a recipient was sent the envelope.
type SendStatus string

const (
	SendStatusNotSent = SendStatus("NOT_SENT")
	SendStatusSent    = SendStatus("SENT")
)

// AccessAuth is a requirement a recipient meets before seeing the document.
type AccessAuth string

const (
	AccessAuthAccount       = AccessAuth("ACCOUNT")
	AccessAuthTwoFactorAuth = AccessAuth("TWO_FACTOR_AUTH")
)

// AccessAuths lists every AccessAuth.
func AccessAuths() []AccessAuth { return []AccessAuth{AccessAuthAccount, AccessAuthTwoFactorAuth} }

// ActionAuth is a requirement a recipient meets before signing.
type ActionAuth string

const (
	ActionAuthAccount       = ActionAuth("ACCOUNT")
	ActionAuthPasskey       = ActionAuth("PASSKEY")
	ActionAuthTwoFactorAuth = ActionAuth("TWO_FACTOR_AUTH")
	ActionAuthPassword      = ActionAuth("PASSWORD")
	ActionAuthExplicitNone  = ActionAuth("EXPLICIT_NONE")
	ActionAuthClaveUnica    = ActionAuth("CLAVE_UNICA") // Chile's government OpenID Connect login
	ActionAuthFAOHash       = ActionAuth("FAO_HASH")    // tied to an advanced electronic signature
)

// RecipientActionAuths lists every ActionAuth a recipient may be given.
func RecipientActionAuths() []ActionAuth {
	return []ActionAuth{ActionAuthAccount, ActionAuthPasskey, ActionAuthTwoFactorAuth, ActionAuthPassword,
		ActionAuthExplicitNone, ActionAuthClaveUnica, ActionAuthFAOHash}
}

// GlobalActionAuths lists the ActionAuth values allowed envelope-wide.
func GlobalActionAuths() []ActionAuth {
	return []ActionAuth{ActionAuthAccount, ActionAuthPasskey, ActionAuthTwoFactorAuth, ActionAuthPassword}
}

// SigningOrder says whether recipients act in parallel or one order group after another.
type SigningOrder string

const (
	SigningOrderParallel   = SigningOrder("PARALLEL")
	SigningOrderSequential = SigningOrder("SEQUENTIAL")
)

// SigningOrders lists every SigningOrder.
func SigningOrders() []SigningOrder {
	return []SigningOrder{SigningOrderParallel, SigningOrderSequential}
}

// DistributionMethod says how recipients learn of the envelope.
type DistributionMethod string

const (
	DistributionEmail = DistributionMethod("EMAIL") // Sobre mails the signing links
	DistributionNone  = DistributionMethod("NONE")  // the caller shares the signing links
)

// DistributionMethods lists every DistributionMethod.
func DistributionMethods() []DistributionMethod {
	return []DistributionMethod{DistributionEmail, DistributionNone}
}

// Language is the language of mails and signing pages.
type Language string

const (
	LanguageEnglish = Language("en")
	LanguageSpanish = Language("es")
)

// Languages lists every Language.
func Languages() []Language { return []Language{LanguageEnglish, LanguageSpanish} }

// DateFormats lists the accepted documentMeta.dateFormat values (Luxon tokens, as Documenso).
func DateFormats() []string {
	return []string{
		"yyyy-MM-dd hh:mm a", "yyyy-MM-dd", "dd/MM/yyyy", "dd-MM-yyyy", "MM/dd/yyyy", "yy-MM-dd",
		"MMMM dd, yyyy", "EEEE, MMMM dd, yyyy", "dd/MM/yyyy hh:mm a", "dd/MM/yyyy HH:mm",
		"dd-MM-yyyy hh:mm a", "dd-MM-yyyy HH:mm", "MM/dd/yyyy hh:mm a", "MM/dd/yyyy HH:mm",
		"dd.MM.yyyy", "dd.MM.yyyy HH:mm", "yyyy-MM-dd HH:mm", "yy-MM-dd hh:mm a", "yy-MM-dd HH:mm",
		"yyyy-MM-dd HH:mm:ss", "MMMM dd, yyyy hh:mm a", "MMMM dd, yyyy HH:mm",
		"EEEE, MMMM dd, yyyy hh:mm a", "EEEE, MMMM dd, yyyy HH:mm", "yyyy-MM-dd'T'HH:mm:ss.SSSXXX",
	}
}

// DurationUnit is the unit of a Duration.
type DurationUnit string

const (
	UnitDay   = DurationUnit("day")
	UnitWeek  = DurationUnit("week")
	UnitMonth = DurationUnit("month")
	UnitYear  = DurationUnit("year")
)

// AttachmentType is the kind of an attachment. Only links exist.
type AttachmentType string

const AttachmentTypeLink = AttachmentType("link")

// OneOf reports whether v is among allowed.
func OneOf[T comparable](v T, allowed []T) bool { return slices.Contains(allowed, v) }

// Member is a user acting within a team: the owner of an API key, the actor of an audit entry.
type Member struct {
	TeamID    int64
	TeamName  string
	TeamURL   string
	UserID    int64
	UserEmail string
	UserName  string
	Role      TeamRole
}
