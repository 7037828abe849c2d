/** The texts the page must show: the product's literal ones and those read from content/. */
import { landingData, readContent } from "./content";

/** The product's literal texts, which the page must show exactly as written here. */
export const SPEC = {
  joinTheMovement: "Join the Movement",
  tagline: "NO LIMITS. JUST PURPOSE.",
  signUp: "Sign Up",
  listenNow: "Listen Now",
  watchNow: "Watch Now",
  followSubscribe: "Follow + Subscribe",
  joinNow: "Join Now",
  sending: "Sending...",
  failureTitle: "Something went wrong",
  failureText: "Please try again later.",
  inlineSuccessTitle: "Welcome to the movement!",
  successText: "Check your email for confirmation.",
  dialogSuccessTitle: "Welcome to The Purpose Effect ✊",
  dialogText: "Get the Effect of the Day Newsletter. No spam. Just Purpose.",
  inlinePlaceholder: "Enter your email",
  notFoundCode: "404",
  notFoundTitle: "Oops! Page not found",
  returnHome: "Return to Home",
  sectionTitles: [
    "New Here? Start with Episode One",
    "My Why: Family First",
    "The Movement: More Than Content",
    "Core Values",
    "The Man Behind the Movement",
  ],
  coreValues: ["Confidence", "Consistency", "Respect", "Responsibility", "Commitment", "Love"],
} as const;

/** The editors' texts from content/*.yaml, for the copy the editors own. */
export const content = landingData();
export const notFoundContent = readContent<{ text: string }>("not-found");

export const videoChannelUrl = (): string => {
  const video = content.channels.items.find((channel) => channel.kind === "video");
  if (!video) throw new Error("content/channels.yaml has no video channel");
  return video.url;
};
