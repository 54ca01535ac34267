// Settings → Appearance: the theme and the language, each "same as the system" until the person
// picks one. Shown in the window and in a browser alike (lib/appearance.ts keeps the choice).
import { type Component, For } from "solid-js";
import { type Appearance, appAppearance, type LanguageChoice, languageChoices, type ThemeChoice, themeChoices } from "../lib/appearance";
import type { MessageKey, Translate } from "../lib/i18n";

const themeLabels: Record<ThemeChoice, MessageKey> = {
  system: "settingsThemeSystem",
  light: "settingsThemeLight",
  dark: "settingsThemeDark",
};

const languageLabels: Record<LanguageChoice, MessageKey> = {
  system: "settingsLanguageSystem",
  en: "settingsLanguageEnglish",
  "zh-CN": "settingsLanguageChinese",
};

export interface AppearanceSettingsProps {
  t: Translate;
  /** The app's appearance unless a test passes its own. */
  appearance?: Appearance;
}

export const AppearanceSettings: Component<AppearanceSettingsProps> = (props) => {
  const appearance = () => props.appearance ?? appAppearance();
  return (
    <section class="settings-appearance" data-testid="appearance-settings" aria-labelledby="appearance-title">
      <h3 class="settings-section" id="appearance-title">{props.t("settingsAppearance")}</h3>
      <div class="appearance-fields">
        <label>
          {props.t("settingsTheme")}
          <select
            data-testid="theme-choice"
            value={appearance().choice().theme}
            onChange={(event) => {
              const theme = themeChoices.find((choice) => choice === event.currentTarget.value);
              if (theme !== undefined) appearance().choose({ theme });
            }}
          >
            <For each={themeChoices}>{(choice) => <option value={choice} selected={appearance().choice().theme === choice}>{props.t(themeLabels[choice])}</option>}</For>
          </select>
        </label>
        <label>
          {props.t("settingsLanguage")}
          <select
            data-testid="language-choice"
            value={appearance().choice().language}
            onChange={(event) => {
              const language = languageChoices.find((choice) => choice === event.currentTarget.value);
              if (language !== undefined) appearance().choose({ language });
            }}
          >
            <For each={languageChoices}>{(choice) => <option value={choice} selected={appearance().choice().language === choice}>{props.t(languageLabels[choice])}</option>}</For>
          </select>
        </label>
      </div>
      <p class="settings-path">{props.t("settingsAppearanceHint")}</p>
    </section>
  );
};
