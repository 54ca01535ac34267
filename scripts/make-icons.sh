#!/usr/bin/env bash
# Draws the Dossier icon (a folder holding a page, on a dark-blue rounded square) with ImageMagick
# and writes the RGBA PNG sizes that tauri.conf.json lists. Tauri needs RGBA, hence PNG32:.
# After changing an icon, touch tauri.conf.json: icon files alone do not trigger a rebuild.
set -euo pipefail
cd "$(dirname "$0")/.."

master=$(mktemp --suffix=.png)
trap 'rm -f "$master"' EXIT

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
  "PNG32:$master"

mkdir -p icons
convert "$master" -resize 32x32 -strip -define png:exclude-chunk=date,time PNG32:icons/32x32.png
convert "$master" -resize 128x128 -strip -define png:exclude-chunk=date,time PNG32:icons/128x128.png
convert "$master" -resize 256x256 -strip -define png:exclude-chunk=date,time PNG32:icons/128x128@2x.png
convert "$master" -resize 512x512 -strip -define png:exclude-chunk=date,time PNG32:icons/icon.png
# The web UI shows the small size as its favicon and sidebar mark.
cp icons/32x32.png ui/public/favicon.png
