#!/usr/bin/env bash
# Draws the Dossier icon (a folder holding a page, on a dark-blue rounded square) as one 1024×1024
# source, icons/app-icon.png, then lets the Tauri CLI (`tauri icon`) derive every size each system
# needs: icon.icns (macOS), icon.ico and the Square*Logo/StoreLogo PNGs (Windows), and the PNG
# sizes (Linux hicolor: 16 to 512, 128x128@2x). The mobile folders it also writes are removed.
#
#   bash scripts/make-icons.sh            # redraw the source, then regenerate every size
#   bash scripts/make-icons.sh --keep     # regenerate from the committed icons/app-icon.png
#
# After changing an icon, touch tauri.conf.json: icon files alone do not trigger a rebuild.
set -euo pipefail
cd "$(dirname "$0")/.."

source_icon=icons/app-icon.png
tauri=(npm --prefix ui exec --no -- tauri)
[ -x ui/node_modules/.bin/tauri ] || tauri=(npx --yes @tauri-apps/cli@2)

if [ "${1:-}" != "--keep" ]; then
  # Tauri needs RGBA, hence PNG32:. No date chunks, so a redraw gives the same bytes.
  convert -size 1024x1024 gradient:'#41568a-#1c2540' \
    \( -size 1024x1024 xc:black -fill white -draw "roundrectangle 72,72 951,951 210,210" \) \
    -alpha off -compose CopyOpacity -composite -compose Over \
    -fill '#c98f2c' -draw "roundrectangle 232,300 792,790 44,44" \
    -fill '#c98f2c' -draw "roundrectangle 232,262 470,340 36,36" \
    -fill '#f6f2e9' -draw "roundrectangle 290,330 734,720 22,22" \
    -fill '#aab3c8' -draw "roundrectangle 350,392 674,416 12,12" \
    -fill '#aab3c8' -draw "roundrectangle 350,452 620,476 12,12" \
    -fill '#efb64f' -draw "roundrectangle 232,470 792,790 44,44" \
    -fill '#f7cf7e' -draw "roundrectangle 420,560 604,588 14,14" \
    -strip -define png:exclude-chunk=date,time "PNG32:$source_icon"
  # The web UI shows the small size as its favicon and sidebar mark.
  convert "$source_icon" -resize 32x32 -strip -define png:exclude-chunk=date,time \
    PNG32:ui/public/favicon.png
fi

# The default set: 32x32, 64x64, 128x128, 128x128@2x, icon.png (512), icon.icns, icon.ico and the
# Windows Store logos. Then the other hicolor sizes Linux desktops look up (16, 24, 48, 256).
"${tauri[@]}" icon "$source_icon" --output icons
"${tauri[@]}" icon "$source_icon" --output icons --png 16,24,48,256
rm -rf icons/android icons/ios
ls -l icons
