// Settings → Appearance: the theme and the language, each "same as the system" until the person
// picks one. Shown in the window and in a browser alike (lib/appearance.ts keeps the choice).
import { type Component, For } from "solid-js";
import { type Appearance, appAppearance, type LanguageChoice, languageChoices, type ThemeChoice, themeChoices } from "../lib/appearance";
import type { MessageKey } from "../lib/i18n";
import { useLanguage } from "../lib/language";

const themeLabels: Record<ThemeChoice, MessageKey> = {
  system: "settings.themeSystem",
  light: "settings.themeLight",
  dark: "settings.themeDark",
};

const languageLabels: Record<LanguageChoice, MessageKey> = {
  system: "settings.languageSystem",
  en: "settings.languageEnglish",
  "zh-CN": "settings.languageChinese",
};

export interface AppearanceSettingsProps {
  /** The app's appearance unless a test passes its own. */
  appearance?: Appearance;
}

export const AppearanceSettings: Component<AppearanceSettingsProps> = (props) => {
  const { t } = useLanguage();
  const appearance = () => props.appearance ?? appAppearance();
  return (
    <section class="settings-appearance" data-testid="appearance-settings" aria-labelledby="appearance-title">
      <h3 class="settings-section" id="appearance-title">{t("settings.appearance")}</h3>
      <div class="appearance-fields">
        <label>
          {t("settings.theme")}
          <select
            data-testid="theme-choice"
            value={appearance().choice().theme}
            onChange={(event) => {
              const theme = themeChoices.find((choice) => choice === event.currentTarget.value);
              if (theme !== undefined) appearance().choose({ theme });
            }}
          >
            <For each={themeChoices}>{(choice) => <option value={choice} selected={appearance().choice().theme === choice}>{t(themeLabels[choice])}</option>}</For>
          </select>
        </label>
        <label>
          {t("settings.language")}
          <select
            data-testid="language-choice"
            value={appearance().choice().language}
            onChange={(event) => {
              const language = languageChoices.find((choice) => choice === event.currentTarget.value);
              if (language !== undefined) appearance().choose({ language });
            }}
          >
            <For each={languageChoices}>{(choice) => <option value={choice} selected={appearance().choice().language === choice}>{t(languageLabels[choice])}</option>}</For>
          </select>
        </label>
      </div>
      <p class="settings-path">{t("settings.appearanceHint")}</p>
    </section>
  );
};
