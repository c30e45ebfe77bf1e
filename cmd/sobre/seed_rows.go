package main

import (
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// The made-up world `sobre seed` fills the database with: Chilean business documents between
// the seed's teams and their counterparties. Everything comes from one seeded random source, so
// two seeds of the same size hold the same data.

var (
	seedDocTypes = []string{"Contrato de arriendo", "Contrato de trabajo", "Contrato de prestación de servicios",
		"Acuerdo de confidencialidad", "Anexo de contrato", "Finiquito", "Orden de compra", "Cotización",
		"Mandato especial", "Poder simple", "Carta oferta", "Convenio de pago", "Pagaré", "Acta de entrega",
		"Contrato de compraventa", "Promesa de compraventa", "Addendum", "Política de privacidad", "Declaración jurada",
		"Reglamento interno", "Autorización de descuento", "Liquidación de sueldo", "Contrato de licencia de software",
		"Acuerdo marco de servicios", "Términos de referencia", "Certificado de antigüedad", "Propuesta comercial",
		"Solicitud de vacaciones", "Carta de renuncia", "Protocolo de teletrabajo"}
	seedFirstNames = []string{"María", "José", "Juan", "Ana", "Luis", "Carmen", "Pedro", "Francisca", "Diego", "Camila",
		"Javiera", "Sebastián", "Valentina", "Matías", "Constanza", "Felipe", "Catalina", "Cristóbal", "Fernanda",
		"Tomás", "Ignacio", "Antonia", "Benjamín", "Daniela", "Rodrigo", "Paula", "Andrés", "Isidora", "Gonzalo",
		"Macarena", "Claudio", "Bárbara", "Patricio", "Josefa", "Vicente", "Trinidad", "Álvaro", "Sofía", "Nicolás", "Rocío"}
	seedLastNames = []string{"González", "Muñoz", "Rojas", "Díaz", "Pérez", "Soto", "Contreras", "Silva", "Martínez",
		"Sepúlveda", "Morales", "Rodríguez", "López", "Fuentes", "Hernández", "Torres", "Araya", "Flores", "Espinoza",
		"Valenzuela", "Castillo", "Tapia", "Reyes", "Gutiérrez", "Castro", "Pizarro", "Álvarez", "Vásquez", "Sánchez",
		"Fernández", "Ramírez", "Carrasco", "Gómez", "Cortés", "Herrera", "Núñez", "Jara", "Vergara", "Rivera", "Figueroa",
		"Riquelme", "Bravo", "Vera", "Molina", "Vega", "Campos", "Sandoval", "Orellana", "Zúñiga", "Olivares"}
	seedCompanyWords = []string{"Andes", "Pacífico", "Austral", "Cordillera", "Atacama", "Maule", "Biobío", "Araucanía",
		"Patagonia", "Valle Central", "Costa", "Altiplano", "Los Lagos", "Elqui", "Aconcagua", "Itata", "Limarí", "Chiloé"}
	seedCompanyKinds = []string{"Minera", "Constructora", "Inmobiliaria", "Transportes", "Comercial", "Agrícola",
		"Servicios", "Ingeniería", "Distribuidora", "Consultora", "Forestal", "Pesquera", "Viña", "Clínica", "Logística"}
	seedCompanySuffixes = []string{"SpA", "Ltda.", "S.A."}
	seedComunas         = []string{"Providencia", "Las Condes", "Ñuñoa", "Santiago Centro", "Vitacura", "La Florida",
		"Maipú", "Puente Alto", "Viña del Mar", "Valparaíso", "Concepción", "Temuco", "Antofagasta", "La Serena",
		"Rancagua", "Talca", "Puerto Montt", "Iquique", "Punta Arenas", "Chillán", "Osorno", "Valdivia", "Arica", "Calama"}
	seedMonths = []string{"enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre",
		"octubre", "noviembre", "diciembre"}
)

// seedStatus is an envelope's status with its share of the seed, in per mille.
type seedStatus struct {
	status   string
	perMille int
}

// seedStatuses are the statuses of seeded documents, in plausible proportions for a team that
// has signed for years: most completed, a quarter in progress.
var seedStatuses = []seedStatus{{"COMPLETED", 580}, {"PENDING", 220}, {"DRAFT", 130}, {"REJECTED", 50}, {"CANCELLED", 20}}

// seedPerson is a counterparty: a name and an email at a company's domain.
type seedPerson struct{ name, email string }

// seedWorld draws the seed's data from one random source.
type seedWorld struct {
	rng       *rand.Rand
	companies []string
	people    [][]seedPerson // each team's counterparties
	now       time.Time
}

func newSeedWorld(teams, peoplePerTeam int, now time.Time) *seedWorld {
	w := &seedWorld{rng: rand.New(rand.NewPCG(19, 1000000)), now: now}
	for _, kind := range seedCompanyKinds {
		for _, word := range seedCompanyWords {
			w.companies = append(w.companies, kind+" "+word+" "+seedCompanySuffixes[w.rng.IntN(len(seedCompanySuffixes))])
		}
	}
	w.people = make([][]seedPerson, teams)
	for t := range w.people {
		for i := range peoplePerTeam {
			first, last := w.pick(seedFirstNames), w.pick(seedLastNames)
			domain := slugASCII(w.pick(w.companies)) + ".cl"
			w.people[t] = append(w.people[t], seedPerson{
				name:  first + " " + last + " " + w.pick(seedLastNames),
				email: fmt.Sprintf("%s.%s%d@%s", slugASCII(first), slugASCII(last), i, domain)})
		}
	}
	return w
}

func (w *seedWorld) pick(list []string) string { return list[w.rng.IntN(len(list))] }

// title is a document's title: its kind, and what or whom it is about.
func (w *seedWorld) title(p seedPerson) string {
	kind := w.pick(seedDocTypes)
	switch w.rng.IntN(5) {
	case 0:
		return fmt.Sprintf("%s — %s", kind, p.name)
	case 1:
		return fmt.Sprintf("%s %s", kind, w.pick(w.companies))
	case 2:
		return fmt.Sprintf("%s N° %d — %s", kind, 1000+w.rng.IntN(99000), w.pick(w.companies))
	case 3:
		return fmt.Sprintf("%s depto %d, %s", kind, 100+w.rng.IntN(2000), w.pick(seedComunas))
	default:
		return fmt.Sprintf("%s %s %d, %s", kind, w.pick(seedMonths), 2022+w.rng.IntN(4), w.pick(seedComunas))
	}
}

// status draws a status by seedStatuses' shares.
func (w *seedWorld) status() string {
	n := w.rng.IntN(1000)
	for _, s := range seedStatuses {
		if n < s.perMille {
			return s.status
		}
		n -= s.perMille
	}
	return seedStatuses[0].status
}

// envelopeID is an id shaped like persistence.NewEnvelopeID's, from the seed's random source.
func (w *seedWorld) envelopeID(prefix string) string {
	const alphabet = "abcdefhiklmnorstuvwxyz"
	var b strings.Builder
	b.WriteString(prefix)
	for range 16 {
		b.WriteByte(alphabet[w.rng.IntN(len(alphabet))])
	}
	return b.String()
}

// createdAt is a time within the three years before now.
func (w *seedWorld) createdAt() time.Time {
	return w.now.Add(-time.Duration(w.rng.Int64N(int64(3 * 365 * 24 * time.Hour))))
}

// tokenHash is a recipient's token hash: unique, and no token has it.
func tokenHash(envelopeID string, i int) []byte {
	sum := sha256.Sum256([]byte(fmt.Sprintf("seed/%s/%d", envelopeID, i)))
	return sum[:]
}

// slugASCII lower-cases s and keeps its ASCII letters and digits, accents folded.
func slugASCII(s string) string {
	fold := strings.NewReplacer("á", "a", "é", "e", "í", "i", "ó", "o", "ú", "u", "ñ", "n", "Á", "a", "É", "e", "Í", "i", "Ó", "o", "Ú", "u", "Ñ", "n")
	var b strings.Builder
	for _, r := range strings.ToLower(fold.Replace(s)) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}
