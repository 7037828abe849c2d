import { flushSync } from "react-dom";
import { createRoot } from "react-dom/client";
import { ToastContainer, toast } from "react-toastify";
import type { Notice } from "./notices";

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
    if (tone === "error") {
      toast.error(body, { role: "alert" });
    } else {
      toast.success(body, { role: "status" });
    }
  };
}
