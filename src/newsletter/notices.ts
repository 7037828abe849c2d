// Type only: the toaster itself is downloaded with the first notice (below).
import type { Notice } from "./toaster";

type ShowNotice = (notice: Notice) => void;

let toaster: Promise<ShowNotice> | undefined;

/**
 * Shows a notice. react-toastify is downloaded with the first notice, not with the page.
 * If even that download fails, the notice is logged so the failure is not silent.
 */
export async function showNotice(notice: Notice): Promise<void> {
  toaster ??= import(/* webpackChunkName: "notices" */ "./toaster").then(({ mountToaster }) =>
    mountToaster(),
  );
  try {
    const show = await toaster;
    show(notice);
  } catch (error) {
    toaster = undefined;
    console.error(`Could not show the notice "${notice.title}: ${notice.description}"`, error);
  }
}
