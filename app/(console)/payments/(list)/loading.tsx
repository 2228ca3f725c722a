export { PageSkeleton as default } from "@/app/_components/page-skeleton";
