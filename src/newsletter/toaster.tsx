// React-toastify's container and the `Notice` type.
import { useEffect, useLayoutEffect, useRef } from "react";
import { flushSync } from "react-dom";
import { createRoot } from "react-dom/client";
import { Bounce, ToastContainer, toast, type ToastTransitionProps } from "react-toastify";

/** What a notice says; `showNotice` (notices.ts) hands it here. */
export interface Notice {
  tone: "success" | "error";
  title: string;
  description: string;
}

/**
 * A notice that is simply there, then gone, for visitors who ask for reduced motion: react-toastify
 * has no switch for it (https://github.com/fkhadra/react-toastify/issues/857). A transition must
 * start the notice's countdown once it has appeared and call `done` once it has left; Bounce does
 * both when its animations end.
 */
function Still({ children, isIn, done, playToast }: ToastTransitionProps) {
  const startCountdown = useRef(playToast);
  useLayoutEffect(() => startCountdown.current(), []);
  useEffect(() => {
    if (!isIn) done();
  }, [isIn, done]);
  return <>{children}</>;
}

// Asked at each notice, so a change of the setting counts from the next one.
const reducedMotion = (): boolean => window.matchMedia("(prefers-reduced-motion: reduce)").matches;

function NoticeBody({ title, description }: Pick<Notice, "title" | "description">) {
  return (
    <div>
      <p className="font-bold">{title}</p>
      <p className="mt-0.5 text-sm">{description}</p>
    </div>
  );
}

/**
 * Mounts the notice area outside the page (so it stays reachable while a dialog makes the page
 * inert) and returns the function that shows a notice in it.
 */
export function mountToaster(): (notice: Notice) => void {
  const host = document.createElement("div");
  host.id = "notices";
  document.body.append(host);
  // Rendered synchronously so the first notice has a container to land in.
  flushSync(() => {
    createRoot(host).render(
      <ToastContainer
        position="top-center"
        autoClose={7000}
        newestOnTop
        closeOnClick={false}
        theme="light"
      />,
    );
  });
  return ({ tone, title, description }) => {
    const body = <NoticeBody title={title} description={description} />;
    const transition = reducedMotion() ? Still : Bounce;
    if (tone === "error") {
      toast.error(body, { role: "alert", transition });
    } else {
      toast.success(body, { role: "status", transition });
    }
  };
}
