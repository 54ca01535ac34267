// What the interface calls things the server knows by id: the built-in agents (`build`, `plan`,
// `general`, `explore`) and the built-in offline model. The ids stay what is sent and typed
// (`@explore`); only what a person reads is named in their language. Agents and models a person
// configured keep the names they gave them.
import type { Agent } from "./bindings/Agent";
import type { MessageKey, Translate } from "./i18n";

const builtInAgents: Readonly<Record<string, { name: MessageKey; description: MessageKey }>> = {
  build: { name: "builtIn.agentBuildName", description: "builtIn.agentBuildDescription" },
  plan: { name: "builtIn.agentPlanName", description: "builtIn.agentPlanDescription" },
  general: { name: "builtIn.agentGeneralName", description: "builtIn.agentGeneralDescription" },
  explore: { name: "builtIn.agentExploreName", description: "builtIn.agentExploreDescription" },
};

/** A built-in agent's words, when `agent` is one (Dossier's own, not one configured under its id). */
function builtIn(agent: Pick<Agent, "name" | "native">) {
  return agent.native && Object.hasOwn(builtInAgents, agent.name) ? builtInAgents[agent.name] : undefined;
}

/** The agent's name in the picker: "Do the work" for `build`; a configured agent's own id. */
export function agentName(t: Translate, agent: Pick<Agent, "name" | "native">): string {
  const known = builtIn(agent);
  return known === undefined ? agent.name : t(known.name);
}

/** What the agent does, in the reader's language for a built-in one; else the configured words. */
export function agentDescription(t: Translate, agent: Pick<Agent, "name" | "native" | "description">): string | undefined {
  const known = builtIn(agent);
  return known === undefined ? agent.description : t(known.description);
}

/** The built-in offline model's provider and id (`dossier/offline`), as the catalog lists it. */
export const offlineModel = { providerID: "dossier", modelID: "offline" } as const;

/** A model's name in the picker; the offline model's in the reader's language. */
export function modelName(t: Translate, model: { providerID: string; id: string; name: string }): string {
  return model.providerID === offlineModel.providerID && model.id === offlineModel.modelID ? t("builtIn.offlineModelName") : model.name;
}

/** Provider `local`: the models that run on this computer (`dossier/offline` stays the fallback). */
export const localProvider = "local";

/** A provider's name in the picker; the models on this computer in the reader's language. */
export function providerName(t: Translate, provider: { id: string; name: string }): string {
  return provider.id === localProvider ? t("builtIn.localProviderName") : provider.name;
}
