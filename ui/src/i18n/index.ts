// i18next setup: follow the OS/browser language (navigator.languages, which the Tauri
// webview takes from the OS) unless the backend prefs name a language.
import i18n from "i18next";
import LanguageDetector from "i18next-browser-languagedetector";
import { initReactI18next } from "react-i18next";
import type { Language } from "../ipc";
import en from "./en";
import zhCN from "./zh-CN";

export const LANGUAGES: { code: Language; name: string }[] = [
  { code: "en", name: "English" },
  { code: "zh-CN", name: "简体中文" },
];

/** Any Chinese locale gets Simplified Chinese, the only Chinese we ship. */
export function toSupported(lng: string): Language {
  return lng.toLowerCase().startsWith("zh") ? "zh-CN" : "en";
}

export function createI18n() {
  const instance = i18n.createInstance();
  void instance
    .use(LanguageDetector)
    .use(initReactI18next)
    .init({
      resources: { en: { translation: en }, "zh-CN": { translation: zhCN } },
      supportedLngs: ["en", "zh-CN"],
      fallbackLng: "en",
      // The choice lives in the backend prefs, so the detector must not cache it
      // in localStorage or cookies.
      detection: { order: ["navigator"], caches: [], convertDetectedLanguage: toSupported },
      interpolation: { escapeValue: false }, // React already escapes text
      initAsync: false,
    });
  instance.on("languageChanged", (lng) => {
    document.documentElement.lang = lng;
  });
  document.documentElement.lang = instance.language;
  return instance;
}

/** Applies prefs.language; null goes back to the detected OS language. */
export function applyLanguage(instance: typeof i18n, language: Language | null) {
  const wanted = language ?? undefined;
  if (wanted && instance.language === wanted) return;
  void instance.changeLanguage(wanted);
}

