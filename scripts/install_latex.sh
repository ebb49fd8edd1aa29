#!/usr/bin/env bash
# Install the TeX Live set the PDF edition needs (scripts/book_pdf.py), from Debian, if it is missing.
#
#     bash scripts/install_latex.sh
#
# XeLaTeX typesets the book (Unicode prose such as Θ, ψ, ≤, →, é, ∂, ⊗ in a font that has the
# glyphs: GNU FreeFont, which Sphinx's XeLaTeX set-up uses), latexmk drives the runs, and poppler's
# pdftotext/pdftoppm let tests/test_book_pdf.py read the PDF and render its pages. Nothing comes
# from outside the distribution (no tlmgr, no CTAN download). Installed without the "recommended"
# extras (documentation, other languages' fonts): about 95 s and 410 MB on Debian 12 (see CONTRIBUTING.md).
# Needs apt-get (Debian or Ubuntu) and root or sudo. Elsewhere, install a TeX distribution with
# xelatex, latexmk and the LaTeX packages Sphinx needs (TeX Live "scheme-medium" is enough) and poppler.
set -euo pipefail

PACKAGES=(
  latexmk                    # drives xelatex until cross-references settle
  texlive-xetex              # xelatex, fontspec, polyglossia
  texlive-latex-recommended  # Sphinx's LaTeX packages (fancyhdr, framed, ...)
  texlive-latex-extra        # more of them (capt-of, needspace, tabulary, varwidth, fncychap, ...)
  texlive-fonts-recommended  # the TeX fonts Sphinx's style loads
  fonts-freefont-otf         # FreeSerif, FreeSans, FreeMono: Greek, arrows, relations, accents
  poppler-utils              # pdftotext, pdfinfo, pdftoppm for the PDF test
)

missing=()
command -v xelatex >/dev/null 2>&1 || missing+=(xelatex)
command -v latexmk >/dev/null 2>&1 || missing+=(latexmk)
command -v pdftotext >/dev/null 2>&1 || missing+=(pdftotext)
command -v pdftoppm >/dev/null 2>&1 || missing+=(pdftoppm)
if [ ${#missing[@]} -eq 0 ] && fc-list 2>/dev/null | grep -q FreeSerif; then
  echo "TeX already installed: $(xelatex --version | head -n 1); $(latexmk --version | grep -m1 Latexmk)"
  exit 0
fi
# shellcheck source=scripts/_apt.sh
source "$(dirname "${BASH_SOURCE[0]}")/_apt.sh"
apt_install "install xelatex, latexmk, GNU FreeFont and poppler yourself (missing: ${missing[*]:-FreeSerif})" \
  --no-install-recommends "${PACKAGES[@]}"
echo "installed: $(xelatex --version | head -n 1); $(latexmk --version | grep -m1 Latexmk)"
