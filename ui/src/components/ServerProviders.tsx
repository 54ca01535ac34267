// Settings in a browser, or in the desktop window attached to a Dossier server: the server's model
// providers and their models, read-only (the server's provider listing, the same one the model
// picker reads). Adding or changing one is done where the server runs, which the note says; the
// attached window's note also says that this computer's own providers are kept for its ledger.
import { type Component, createResource, For, Show } from "solid-js";

import type { ProviderSettingsStore } from "../lib/provider-settings-store";
import { toBackendError } from "../lib/transport";
import { useLanguage } from "../lib/language";

export interface ServerProvidersProps {
  /** Lists the server's catalog; its `attached` (the desktop window attached to a server, not a browser) says "use the desktop app" would be no help. */
  providers: ProviderSettingsStore;
}

export const ServerProviders: Component<ServerProvidersProps> = (props) => {
  const { t } = useLanguage();
  const [catalog] = createResource(() => props.providers.serverCatalog());
  return (
    <section data-testid="server-providers" aria-labelledby="server-providers-title">
      <h3 class="settings-section" id="server-providers-title">{t("settings.providers")}</h3>
      <p class="settings-path" data-testid="settings-desktop-only">{t(props.providers.attached ? "settings.providersAttached" : "settings.providersReadOnly")}</p>
      <Show when={catalog.error !== undefined}>
        <p class="notice notice--unavailable" role="alert" data-testid="settings-error">{toBackendError(catalog.error).message}</p>
      </Show>
      <ul class="provider-list">
        <For each={catalog.error === undefined ? (catalog()?.providers ?? []) : []}>
          {(provider) => (
            <li class="provider-row" data-testid="server-provider-row" data-provider-id={provider.id}>
              <div class="provider-facts">
                <p class="provider-name">{provider.name}</p>
                <p class="provider-detail">{provider.models.map((model) => model.name).join(", ")}</p>
              </div>
            </li>
          )}
        </For>
      </ul>
    </section>
  );
};
